"""The actions: the main agent's, and those of the micro agents it delegates to."""

from actions.dashboards import update_current_dashboard, update_overall_dashboard
from actions.finish import all_finished
from agent_runtime.registry import Action


def main_actions() -> list[Action]:
    """The main agent's action set, in the fixed order of its tool list."""
    return [update_overall_dashboard, update_current_dashboard, all_finished]


__all__ = ["main_actions"]
