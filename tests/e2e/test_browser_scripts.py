"""Scripted flows (`script_run`, `script_load`, `script_list`) through the MCP server against
a real Chromium: a whole sign-in behind a cookie banner in one call, elements named rather
than referenced, a stop at the first failing step with the page as it is then, the tools'
own guards on every step, and flows that belong to the agent that kept them."""

from __future__ import annotations

import pytest

from browser_helpers import err, ok
from browser_site import PASSWORD, Site
from conftest import text_of
from test_browser import ENV, browser_manifest, sites  # noqa: F401  (the fixture)
from test_concurrency import two_clients

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("chromium")]


def sign_in(site: Site) -> list[dict]:
    return [
        {"do": "navigate", "url": site.url("/login")},
        {"do": "click", "name": "Accept all"},
        {"do": "fill", "name": "Email", "role": "textbox", "value": "user@example.com"},
        {"do": "fill", "name": "Password", "secret": "APP_PASSWORD"},
        {"do": "click", "name": "Sign in", "role": "button"},
        {"do": "wait_for", "text": "Welcome back"},
        {"do": "extract", "format": "text"},
    ]


async def test_a_flow_signs_in_behind_a_cookie_banner_in_one_call(start_warden, write_manifest, sites) -> None:
    main, other, _ = sites
    manifest = browser_manifest(write_manifest, main, other, ', secrets = ["APP_PASSWORD"]')
    async with start_warden(manifest, env=ENV) as w:
        done = await ok(w, "script_run", {"steps": sign_in(main)})
        assert done.startswith("Ran 7 step(s)."), done
        assert '3. fill "Email"' in done and '4. fill "Password" (secret)' in done, done
        # The last step's answer comes whole: the page's text.
        assert "Welcome back, user@example.com" in done.split("\n\n", 1)[1], done
        assert PASSWORD not in done
    # Each step went through the host like a call of its own: its navigation is audited.
    used = [a for a in manifest.audit_lines() if a["event"] == "capability_used" and a.get("capability") == "browser.navigate"]
    assert any("/login" in a.get("target", "") for a in used), used


async def test_a_flow_stops_at_the_first_failing_step_with_the_page_as_it_is(start_warden, write_manifest, sites) -> None:
    main, other, _ = sites
    async with start_warden(browser_manifest(write_manifest, main, other)) as w:
        steps = [
            {"do": "navigate", "url": main.url("/login")},
            {"do": "click", "name": "Subscribe now"},
            {"do": "click", "name": "Accept all"},
        ]
        stopped = await err(w, "script_run", {"steps": steps})
        assert 'stopped at step 2 of 3 (click "Subscribe now"): no element named "Subscribe now"' in stopped, stopped
        assert "Steps that ran:\n1. navigate" in stopped, stopped
        # The page as it is now, with refs to go on by hand; step 3 never ran.
        assert '[button] "Accept all"' in stopped and "OVERLAY" in stopped, stopped


async def test_every_step_keeps_the_tools_guards(start_warden, write_manifest, sites) -> None:
    main, other, blocked = sites
    async with start_warden(browser_manifest(write_manifest, main, other)) as w:
        stopped = await err(w, "script_run", {"steps": [
            {"do": "navigate", "url": main.url("/login")},
            {"do": "navigate", "url": blocked.url("/evil")},
        ]})
        assert "stopped at step 2 of 2" in stopped and blocked.origin.split("//")[1] in stopped, stopped
        assert "You should never see this" not in stopped
        # No eval_js grant: a step cannot get one either.
        stopped = await err(w, "script_run", {"steps": [{"do": "eval_js", "expression": "document.cookie"}]})
        assert "stopped at step 1 of 1" in stopped and "eval_js" in stopped, stopped
        # Not a step: flows within flows, screenshots, unknown tools.
        for bad in ("run", "screenshot", "script_run", "shell"):
            refused = await err(w, "script_run", {"steps": [{"do": bad}]})
            assert f'step 1 does "{bad}", which is not a step' in refused, refused
        refused = await err(w, "script_run", {"steps": [{"do": "click", "name": "Sign in", "ref": 3}]})
        assert "both name and ref" in refused, refused
        refused = await err(w, "script_run", {"steps": [{"do": "navigate", "url": main.url("/")}] * 51})
        assert "at most 50 steps" in refused, refused


async def test_a_kept_flow_runs_by_name(start_warden, write_manifest, sites) -> None:
    main, other, _ = sites
    manifest = browser_manifest(write_manifest, main, other, ', secrets = ["APP_PASSWORD"]')
    async with start_warden(manifest, env=ENV) as w:
        assert "No flows kept" in await ok(w, "script_list", {})
        kept = await ok(w, "script_load", {"name": "sign-in", "steps": sign_in(main), "description": "sign in as the test user"})
        assert kept.startswith('Kept flow "sign-in" (7 step(s))'), kept
        listed = await ok(w, "script_list", {})
        assert listed.startswith("sign-in (7 step(s)) — sign in as the test user: navigate"), listed
        assert PASSWORD not in listed
        done = await ok(w, "script_run", {"name": "sign-in"})
        assert "Welcome back, user@example.com" in done, done
        missing = await err(w, "script_run", {"name": "sign-out"})
        assert 'no flow named "sign-out"' in missing, missing
        bad = await err(w, "script_load", {"name": "../x", "steps": sign_in(main)})
        assert "must be 1-64 letters" in bad, bad


async def test_a_flow_belongs_to_the_client_that_kept_it(warden_bin, warden_env, write_manifest, sites) -> None:
    main, other, _ = sites
    manifest = browser_manifest(write_manifest, main, other)
    async with two_clients(warden_bin, {**warden_env, **ENV}, manifest) as (alice, bob):
        steps = [{"do": "navigate", "url": main.url("/login")}]
        kept = await alice.call_tool("script_load", {"name": "mine", "steps": steps})
        assert not kept.is_error, text_of(kept)
        assert "mine" in text_of(await alice.call_tool("script_list", {}))
        assert "No flows kept" in text_of(await bob.call_tool("script_list", {}))
        refused = await bob.call_tool("script_run", {"name": "mine"})
        assert refused.is_error and 'no flow named "mine"' in text_of(refused), text_of(refused)
        # bob keeping his own "mine" leaves alice's alone.
        await bob.call_tool("script_load", {"name": "mine", "steps": steps * 2})
        assert "mine (1 step(s))" in text_of(await alice.call_tool("script_list", {}))


ADMIN_FLOWS = """
[plugin.settings.flows.sign-in]
description = "sign in to the test site"
steps = [
  {{ do = "navigate", url = "{main}/${{page}}" }},
  {{ do = "click", name = "Accept all" }},
  {{ do = "fill", name = "Email", role = "textbox", value = "${{email}}" }},
  {{ do = "fill", name = "Password", secret = "APP_PASSWORD" }},
  {{ do = "click", name = "Sign in", role = "button" }},
  {{ do = "wait_for", text = "Welcome back" }},
  {{ do = "extract", format = "text" }},
]

[plugin.settings.flows.broken]
steps = [{{ do = "shell", command = "id" }}]

[plugin.settings.flows.away]
steps = [{{ do = "navigate", url = "{blocked}/evil" }}]
"""


async def test_flows_the_admin_ships_run_by_name_with_params_and_the_same_guards(
    start_warden, write_manifest, sites
) -> None:
    main, other, blocked = sites
    manifest = browser_manifest(write_manifest, main, other, ', secrets = ["APP_PASSWORD"]')
    manifest.path.write_text(manifest.path.read_text() + ADMIN_FLOWS.format(main=main.origin, blocked=blocked.origin))
    async with start_warden(manifest, env=ENV) as w:
        listed = await ok(w, "script_list", {})
        assert (
            "sign-in (7 step(s), from the admin) params: page, email — sign in to the test site: navigate" in listed
        ), listed
        assert PASSWORD not in listed
        missing = await err(w, "script_run", {"name": "sign-in", "params": {"page": "login"}})
        assert 'the flow needs params email; give them as {"params": {"email": "..."}}' in missing, missing
        params = {"page": "login", "email": "ada@example.com"}
        done = await ok(w, "script_run", {"name": "sign-in", "params": params})
        assert done.startswith("Ran 7 step(s).") and f'1. navigate "{main.url("/login")}"' in done, done
        assert "Welcome back" in done and PASSWORD not in done, done
        # The agent cannot replace the admin's flow with one of its own.
        replaced = await err(w, "script_load", {"name": "sign-in", "steps": [{"do": "snapshot"}]})
        assert "is a flow the admin ships" in replaced, replaced
        again = await ok(w, "script_run", {"name": "sign-in", "params": {"page": "login", "email": "grace@example.com"}})
        assert "Welcome back" in again, again
        # An admin's flow gets no more than the plugin's grants, and a malformed one says so.
        away = await err(w, "script_run", {"name": "away"})
        assert "stopped at step 1 of 1" in away and blocked.origin.split("//")[1] in away, away
        assert "You should never see this" not in away
        broken = await err(w, "script_run", {"name": "broken"})
        assert "the admin's flow \"broken\"" in broken and 'step 1 does "shell", which is not a step' in broken, broken
    used = [a for a in manifest.audit_lines() if a["event"] == "capability_used" and a.get("capability") == "browser.navigate"]
    assert sum("/login" in a.get("target", "") for a in used) >= 2, used
