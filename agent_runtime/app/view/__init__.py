"""The live web view, `deep-researcher view [FOLDER] [--port N]`: watch runs, read their dashboards,
notes, sources and report, edit a dashboard, stop and resume (server.py; the page is in static/).
Imported only by that command: the CLI's other commands never load the web server."""

from agent_runtime.app.view.server import serve

__all__ = ["serve"]
