"""The rules page: each rule set on offer with its tables (:mod:`..rulebook`)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..rulebook import rule_set_page
from ..site import site_of


async def rules_page(request: Request) -> Response:
    site = site_of(request)
    rule_sets = [
        rule_set_page(key, site.catalog.rules_label(key), rules)
        for key, rules in site.catalog.rules.items()
    ]
    return site.page(request, "rules.html", rule_sets=rule_sets, title="101 · rules")


ROUTES = [Route("/rules", rules_page)]
