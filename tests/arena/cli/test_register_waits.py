"""`arena bots register` waits for vetting (issue 28, point 6): it follows each upload
to its verdict, exits 1 with the reason and the log tail when one is rejected, and
returns at once with --no-wait. `arena bots show` reports a deactivation and why."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.cli import main
from arena.server.app import RunningServer
from tests.helpers.lifecycle_helpers import mark_deactivated
from tests.helpers.sandboxes import HOSTILE_BOTS, SAMPLE_BOTS
from tests.helpers.servers import ServerFactory, with_bots


@pytest.fixture
def vetting_server(serve: ServerFactory) -> RunningServer:
    return serve(runner=None, vetting_sandbox="process")


def cli(capsys: pytest.CaptureFixture[str], server: RunningServer, *argv: str
        ) -> tuple[int, str, str]:
    code = main([*argv, "--server", server.address, "--token", server.token])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_register_follows_each_upload_to_its_verdict(
        vetting_server: RunningServer, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, vetting_server, "bots", "register",
                         str(SAMPLE_BOTS / "random"), str(HOSTILE_BOTS / "exits_at_start"))
    assert code == 1, out + err
    assert "random@1.0.0: active" in out
    assert "hostile-exits-at-start@1.0.0 rejected:" in out
    # Returned only when settled: a season may use the active one at once.
    code, out, err = cli(capsys, vetting_server, "season", "create", "--bots", "random",
                         "random", "--hold")
    assert "is validating" not in out + err


def test_register_json_carries_the_final_status(
        vetting_server: RunningServer, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, vetting_server, "bots", "register",
                       str(SAMPLE_BOTS / "random"), "--json")
    assert code == 0
    [result] = json.loads(out)
    assert (result["bot"]["id"], result["bot"]["status"]) == ("random@1.0.0", "active")


def test_register_no_wait_returns_before_vetting(
        vetting_server: RunningServer, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, vetting_server, "bots", "register",
                       str(SAMPLE_BOTS / "random"), "--no-wait", "--json")
    assert code == 0
    [result] = json.loads(out)
    assert result["bot"]["status"] == "received"  # as uploaded, not yet vetted


@pytest.fixture
def server(serve: ServerFactory, tmp_path: Path) -> RunningServer:
    return with_bots(serve(), tmp_path)


def test_bots_show_reports_a_deactivation_and_its_reason(
        server: RunningServer, capsys: pytest.CaptureFixture[str]) -> None:
    mark_deactivated(server.storage, "random@1.0.0", "5 forfeits in a row (last: timeout)")
    code, out, _ = cli(capsys, server, "bots", "show", "random")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "random@1.0.0  deactivated: 5 forfeits in a row (last: timeout)"
    assert ("  deactivated: it plays in no new season until the admin runs "
            "`arena bots reactivate random@1.0.0`") in lines
    code, out, _ = cli(capsys, server, "bots", "show", "random", "--json")
    [version] = json.loads(out)
    assert version["bot"]["status"] == "deactivated"
    assert version["status_detail"] == "5 forfeits in a row (last: timeout)"
