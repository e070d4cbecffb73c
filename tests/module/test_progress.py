"""fit's progress display: a tqdm bar when tqdm is installed, log lines when it is not,
nothing on short runs or when told not to."""
import logging

import pytest

import minimx as mx
from minimx.module import progress

from module_cases import mlp, separable


def fit(**kwargs):
    x, y = separable(n=32)
    mod = mx.mod.Module(mlp())
    mod.fit(mx.io.NDArrayIter(x, y, batch_size=8), num_epoch=2, **kwargs)


def test_auto_shows_nothing_when_output_is_not_a_terminal(monkeypatch):
    monkeypatch.setattr(progress.sys, "stderr", open(__file__))      # not a tty
    assert progress.wants_progress("auto") is False
    assert progress.wants_progress(True) and not progress.wants_progress(False)


def test_a_tqdm_bar_per_epoch(monkeypatch, capsys):
    pytest.importorskip("tqdm")
    monkeypatch.setattr(progress, "DELAY", 0.0)
    monkeypatch.setattr(progress, "REFRESH", 0.0)
    fit(progress=True)
    err = capsys.readouterr().err
    assert "Epoch[0]" in err and "Epoch[1]" in err
    assert "4/4" in err and "accuracy=" in err          # epoch 1 knows its 4 batches


def test_log_lines_without_tqdm(monkeypatch, caplog):
    caplog.set_level(logging.INFO)
    monkeypatch.setattr(progress, "_tqdm", lambda: None)
    monkeypatch.setattr(progress, "DELAY", 0.0)
    monkeypatch.setattr(progress, "LOG_EVERY", 0.0)
    fit(progress=True)
    lines = [r.getMessage() for r in caplog.records if "batches/sec" in r.getMessage()]
    assert lines[0].startswith("Epoch[0] Batch[1] ") and "accuracy=" in lines[0]
    assert lines[-1].startswith("Epoch[1] Batch[4/4] ")


def test_no_progress_when_off(monkeypatch, capsys, caplog):
    caplog.set_level(logging.INFO)
    monkeypatch.setattr(progress, "DELAY", 0.0)
    fit(progress=False)
    assert "Epoch[0]:" not in capsys.readouterr().err
    assert not any("batches/sec" in r.getMessage() for r in caplog.records)
