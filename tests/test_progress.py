"""Long work shows progress, quick work shows nothing: ``shown_when_slow`` (every command of the CLI and
``%aistor`` runs under it) and the commands that report their own progress instead."""

from __future__ import annotations

import time

from tqdm import tqdm

from aistor_lab.workbench import progress
from aistor_lab.workbench.commands.registry import COMMANDS


def test_a_quick_block_shows_nothing(capsys):
    with progress.shown_when_slow("aistor table list", enabled=True, after=0.5):
        time.sleep(0.05)
    assert capsys.readouterr().err == ""


def test_a_slow_block_shows_what_runs_and_for_how_long_then_clears_it(capsys):
    with progress.shown_when_slow("aistor table import", enabled=True, after=0.2):
        time.sleep(1.5)
    shown = capsys.readouterr().err  # tqdm.auto is the terminal's tqdm outside a kernel
    assert "aistor table import: 00:01" in shown  # the description and the time elapsed, moving
    assert shown.split("\r")[-1].strip() == ""  # and the line is blanked when the block ends


def test_no_bar_where_nobody_watches(capsys):
    with progress.shown_when_slow("aistor table import", after=0.1):  # a test's stderr is not a terminal
        time.sleep(0.4)
    assert capsys.readouterr().err == ""


def test_the_commands_with_their_own_output_are_left_alone():
    own = sorted(command.name for command in COMMANDS if command.own_progress)
    assert own == ["cat", "cp", "spark", "table migrate"]
    assert isinstance(progress.progress_bar(False), tqdm)
