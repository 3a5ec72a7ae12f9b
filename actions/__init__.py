"""The actions: the main agent's, and those of the micro agents it delegates to."""

from actions.browser.browse import browse
from actions.chart import chart
from actions.dashboards import update_current_dashboard, update_overall_dashboard
from actions.file_operation import file_operation
from actions.finish import all_finished
from actions.research_task import research_task
from actions.steering import ask_user
from actions.web import visit_url, web_search
from agent_runtime.engine.registry import Action


def main_actions(*, clarify: bool = False) -> list[Action]:
    """The main agent's action set, in the fixed order of its tool list; ask_user only in a run
    with --clarify."""
    return [
        file_operation,
        web_search,
        visit_url,
        browse,
        research_task,
        chart,
        *([ask_user] if clarify else []),
        update_overall_dashboard,
        update_current_dashboard,
        all_finished,
    ]


__all__ = ["main_actions"]
