"""Live updates without freezing the notebook, and displaying a view with its static fallback.

A view that changes while a cell runs is refreshed from a background thread,
at most every ``interval`` seconds and less often when one refresh is slow, so
the work being observed keeps most of the interpreter.
"""
import threading
import time

__all__ = ["Throttled", "in_kernel", "show", "anywidget_class"]


class Throttled:
    """Call ``update()`` from a background thread, at most every ``interval`` seconds.

    When one call takes ``cost`` seconds the next waits ``cost / share`` at least, so
    refreshing never takes more than ``share`` of the time.  ``stop()`` ends the thread
    and makes one last call.
    """

    def __init__(self, update, interval=0.15, share=0.1):
        self.update = update
        self.interval = interval
        self.share = share
        self.calls = 0
        self.busy = 0.0                 # seconds spent in update(), for the benchmark
        self._stop = threading.Event()
        self._thread = None

    def start(self):
        self._thread = threading.Thread(target=self._loop, name="widget-refresh", daemon=True)
        self._thread.start()
        return self

    def _loop(self):
        delay = self.interval
        while not self._stop.wait(delay):
            cost = self._call()
            delay = max(self.interval, cost / self.share)

    def _call(self):
        begin = time.perf_counter()
        self.update()
        cost = time.perf_counter() - begin
        self.calls += 1
        self.busy += cost
        return cost

    def stop(self, final=True):
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            self._thread = None
        if final:
            self._call()


def in_kernel():
    """True inside a Jupyter kernel (where widgets and rich display can work)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def show(view):
    """Display ``view`` with a display id (so it can be redrawn later); None outside a kernel."""
    if not in_kernel():
        return None
    from IPython.display import display
    return display(view, display_id=True)


_CLASSES = {}


def anywidget_class(name, esm_paths, css_path=None, traits=None):
    """An ``anywidget.AnyWidget`` subclass whose JavaScript is the files ``esm_paths``, joined.

    ``traits`` maps names to traitlets (synced to the browser).  Returns None when
    anywidget is not installed: the views then show only their static picture.
    """
    if name in _CLASSES:
        return _CLASSES[name]
    try:
        import anywidget
    except ImportError:
        return None
    source = "\n".join(path.read_text() for path in esm_paths)
    namespace = {"_esm": source, "_css": css_path.read_text() if css_path else ""}
    for trait_name, trait in (traits or {}).items():
        namespace[trait_name] = trait.tag(sync=True)
    _CLASSES[name] = type(name, (anywidget.AnyWidget,), namespace)
    return _CLASSES[name]
