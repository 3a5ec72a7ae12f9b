"""The app a person touches: every entry point, and the wiring of a run.

The run itself (`researcher`: the engine's loop with the actions, and `research`/`resume`), the CLI
(`cli`), the setup check (`check`, `endpoint_notes`), the live console line (`terminal_status`), `inspect`
(`inspect_command`), the citation re-check of a finished report (`audit`), the report in HTML
(`markdown_html`, `export`) and the live view in a browser (`view`).

Only the app imports `actions/`; nothing below it imports the app.
"""
