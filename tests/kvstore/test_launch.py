"""python -m minimx.tools.launch: the mpirun command line it builds."""
import subprocess
import sys

import pytest

from minimx.tools import launch


def test_openmpi_command_allows_root_and_oversubscription(monkeypatch):
    monkeypatch.setattr(launch.os, "geteuid", lambda: 0)
    line, env = launch.build_command("/x/mpirun", 2, ["python", "train.py", "--lr", "1"],
                                     flavour="openmpi")
    assert line == ["/x/mpirun", "-n", "2", "--oversubscribe", "python", "train.py", "--lr", "1"]
    assert env == {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}


def test_mpich_command_has_no_openmpi_flags(monkeypatch):
    monkeypatch.setattr(launch.os, "geteuid", lambda: 0)
    line, env = launch.build_command("mpiexec", 3, ["python", "t.py"], hostfile="hosts",
                                     flavour="mpich")
    assert line == ["mpiexec", "-n", "3", "-f", "hosts", "python", "t.py"]
    assert env == {}


def test_explicit_and_environment_mpirun_win(monkeypatch):
    monkeypatch.setenv("MINIMX_MPIRUN", "/env/mpirun")
    assert launch.find_mpirun("/given/mpirun") == "/given/mpirun"
    assert launch.find_mpirun() == "/env/mpirun"


def test_dry_run_prints_the_command(capsys):
    assert launch.main(["-n", "2", "--mpirun", "/x/mpirun", "--dry-run", "python", "a.py"]) == 0
    assert capsys.readouterr().out.strip().endswith("/x/mpirun -n 2 python a.py")


def test_bad_arguments_are_reported():
    result = subprocess.run([sys.executable, "-m", "minimx.tools.launch", "-n", "2"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "give the command" in result.stderr
    with pytest.raises(SystemExit):
        launch.main(["-n", "0", "python", "a.py"])


def test_missing_mpirun_exits_127(monkeypatch, capsys):
    monkeypatch.setattr(launch, "find_mpirun", lambda explicit=None: None)
    assert launch.main(["-n", "2", "python", "a.py"]) == 127
    assert "no mpirun" in capsys.readouterr().err
