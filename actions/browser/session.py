"""One Chromium per run: found on the machine, started on first use, behind the policy proxy, and
closed when the run ends (it is a run service: `ctx.services` closes it in the run's
`finally`, so also after a crash of the run; if the whole process is killed, Linux ends Chromium
with it through PR_SET_PDEATHSIG).

The browser is the system's Chromium (Debian's `chromium`, or `browser_path` / `--browser-path`),
run headless with a fresh profile in a temporary folder that is deleted at the end. Nothing is
downloaded at run time: no browser, no extensions, no component or safe-browsing updates, no
telemetry. Every request it makes goes through `PolicyProxy` (see proxy.py), which applies the URL
policy to every navigation, redirect, sub-frame and sub-resource.

Importing this module is cheap: browser-use and websockets are imported only when a browser is
really started, so the CLI starts as fast without the extra as with it.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import importlib.util
import logging
import os
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Coroutine
from pathlib import Path
from typing import Any

from actions.browser.cdp import CDPConnection
from actions.browser.proxy import Connector, PolicyProxy
from agent_runtime.config import Settings
from agent_runtime.engine.run_context import ActionContext
from agent_runtime.errors import BrowserError, BrowserUnavailableError, CDPError
from sandbox.chromium import locate_chromium
from sandbox.url_policy import URLPolicy

INSTALL_EXTRA = "pip install 'deep-researcher[browser]'"
INSTALL_CHROMIUM = "apt-get install chromium"
# Looked up on PATH, in this order, when no browser_path is set.
_START_TIMEOUT = 30.0  # seconds for Chromium to open its DevTools socket
_PAGES_AT_ONCE = 4  # page loads in parallel: each one is a renderer process

# browser-use reads its configuration from the environment on every access. Telemetry, cloud
# sync, the version check (a PyPI request), cloud hints and its extension downloads are switched
# off, and it must not reconfigure the process's logging (the CLI owns the terminal).
BROWSER_USE_ENV = {
    "ANONYMIZED_TELEMETRY": "false",
    "BROWSER_USE_CLOUD_SYNC": "false",
    "BROWSER_USE_VERSION_CHECK": "false",
    "BROWSER_USE_CLOUD_HINTS": "false",
    "BROWSER_USE_DISABLE_EXTENSIONS": "true",
    "BROWSER_USE_SETUP_LOGGING": "false",
}
_QUIET_LOGGERS = ("browser_use", "cdp_use", "bubus", "websockets")


# Installed in every tab's documents before their own scripts run: counts the requests scripts
# have in flight, so a page load can tell when the page's scripts have their data (render.py).
TRACK_REQUESTS_JS = """(() => {
  let pending = 0;
  Object.defineProperty(window, '__deepResearcherPending', {get: () => pending});
  const originalFetch = window.fetch;
  if (originalFetch) {
    // A fetch counts until its body has been read and the code waiting for it has run (the
    // headers alone come before the data a page shows), or for one second if nothing reads it.
    window.fetch = function (...args) {
      pending++;
      let counted = true;
      const done = () => { if (counted) { counted = false; setTimeout(() => { pending--; }, 0); } };
      return originalFetch.apply(this, args).then((response) => {
        for (const name of ['json', 'text', 'arrayBuffer', 'blob', 'formData']) {
          const read = response[name].bind(response);
          response[name] = () => read().finally(done);
        }
        setTimeout(done, 1000);
        return response;
      }, (error) => { done(); throw error; });
    };
  }
  const send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (...args) {
    pending++;
    this.addEventListener('loadend', () => { pending--; }, {once: true});
    return send.apply(this, args);
  };
})();"""


def missing_extra() -> str | None:
    """Why the browser extra cannot be used, or None when it is installed (nothing is imported)."""
    for module in ("browser_use", "websockets"):
        if importlib.util.find_spec(module) is None:
            return f"the browser is not installed: the [browser] extra is missing ({INSTALL_EXTRA})"
    return None


def find_chromium(configured: Path | None) -> Path:
    """The Chromium executable: `configured` if given, else the first of CANDIDATES on PATH."""
    found = locate_chromium(configured)
    if found is not None:
        return found
    if configured is not None:
        raise BrowserUnavailableError(
            f"the browser is not installed: no executable browser at {configured.expanduser()} "
            "(browser_path / --browser-path)"
        )
    raise BrowserUnavailableError(
        f"the browser is not installed: Chromium was not found ({INSTALL_CHROMIUM}, "
        "or give its path with --browser-path)"
    )


def chromium_flags(profile: Path, proxy: str, *, as_root: bool) -> list[str]:
    """Command-line flags: headless, quiet, isolated, and every request through `proxy`."""
    flags = [
        "--headless",
        "--disable-gpu",
        # QUIC is UDP, which does not go through an HTTP proxy; WebRTC likewise.
        "--disable-quic",
        "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
        "--webrtc-ip-handling-policy=disable_non_proxied_udp",
        f"--proxy-server={proxy}",
        # Chromium never proxies loopback addresses unless told so: "<-loopback>" removes that
        # exception, so http://127.0.0.1/ meets the URL policy like any other address.
        "--proxy-bypass-list=<-loopback>",
        # Nothing running in the background, nothing downloaded, nothing reported.
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-extensions",
        "--disable-default-apps",
        "--disable-breakpad",
        "--disable-domain-reliability",
        "--disable-client-side-phishing-detection",
        "--safebrowsing-disable-auto-update",
        "--metrics-recording-only",
        "--no-pings",
        "--dns-prefetch-disable",
        # HttpsUpgrades would try https:// first for every http:// navigation.
        "--disable-features=Translate,OptimizationHints,MediaRouter,DialMediaRouteProvider,"
        "AutofillServerCommunication,CertificateTransparencyComponentUpdater,HttpsUpgrades,"
        "InterestFeedContentSuggestions,PrivacySandboxSettings4,NetworkTimeServiceQuerying",
        "--disable-dev-shm-usage",  # containers often have a tiny /dev/shm
        "--mute-audio",
        "--password-store=basic",
        "--window-size=1280,1024",
        f"--user-data-dir={profile}",
        "--remote-debugging-port=0",  # any free port; Chromium writes it to DevToolsActivePort
    ]
    if as_root:
        flags.append("--no-sandbox")  # Chromium refuses to run as root with its sandbox
    return flags


def prepare_browser_use() -> None:
    """Configure browser-use's environment before its first import (see BROWSER_USE_ENV)."""
    os.environ.update(BROWSER_USE_ENV)
    # Its config folder (profiles, device id) in the temp folder, not the user's home.
    os.environ.setdefault(
        "BROWSER_USE_CONFIG_DIR",
        str(Path(tempfile.gettempdir()) / f"deep-researcher-browser-use-{os.getuid()}"),
    )
    for name in _QUIET_LOGGERS:
        # Their warnings would scribble over the CLI's status line; failures reach the model
        # through the actions' observations instead.
        logging.getLogger(name).setLevel(logging.CRITICAL)


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    _LIBC.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: killed if the run's process dies


_LIBC: Any = None
if sys.platform.startswith("linux"):
    with contextlib.suppress(OSError):
        _LIBC = ctypes.CDLL(None, use_errno=True)  # loaded now: nothing to load after fork


class Tab:
    """One tab in its own browser context (no cookies or storage shared, downloads refused)."""

    def __init__(self, browser: Browser, context_id: str, session_id: str) -> None:
        self.browser = browser
        self.context_id = context_id
        self.session_id = session_id

    async def call(self, method: str, params: dict[str, Any] | None = None, timeout: float = 30.0) -> Any:
        return await self.browser.send(method, params, session_id=self.session_id, timeout=timeout)

    async def evaluate(self, expression: str, timeout: float = 10.0) -> Any:
        """The JSON value of a JavaScript expression in the tab's page."""
        answer = await self.call(
            "Runtime.evaluate", {"expression": expression, "returnByValue": True}, timeout=timeout
        )
        if "exceptionDetails" in answer:
            raise CDPError(f"script failed: {answer['exceptionDetails'].get('text', 'error')}")
        return answer.get("result", {}).get("value")

    async def dispose(self) -> None:
        with contextlib.suppress(CDPError, BrowserError):
            await self.browser.send(
                "Target.disposeBrowserContext", {"browserContextId": self.context_id}, timeout=10.0
            )


class Browser:
    """The run's Chromium. Create it cheaply; `start()` launches it (once); `aclose()` ends it.

    `policy` and `connector` are for tests: the proxy resolves with `policy` and opens connections
    with `connector` (by default the run's URL policy and plain TCP)."""

    def __init__(
        self, settings: Settings, *, policy: URLPolicy | None = None, connector: Connector | None = None
    ) -> None:
        self.settings = settings
        self.policy = policy or URLPolicy(allow_private=settings.allow_private_urls, offline=settings.offline)
        self.proxy = PolicyProxy(self.policy, connector=connector)
        self.pages = asyncio.Semaphore(_PAGES_AT_ONCE)
        self.start_seconds = 0.0  # how long the last start took
        self.starts = 0
        self.ws_url: str | None = None
        self._executable: Path | None = None
        self._process: asyncio.subprocess.Process | None = None
        self._cdp: CDPConnection | None = None
        self._folder: Path | None = None
        self._lock = asyncio.Lock()
        # One tab made ready in advance, so that a page load does not wait for a new context and
        # tab (a tenth of a second or more): agents read pages one after another.
        self._spare: asyncio.Task[Tab] | None = None
        self._chores: set[asyncio.Task[None]] = set()  # tabs being thrown away

    # -- availability ----------------------------------------------------------------------------
    def check(self) -> None:
        """Raise BrowserUnavailableError if the extra or Chromium is missing (nothing is started)."""
        problem = missing_extra()
        if problem:
            raise BrowserUnavailableError(problem)
        if self._executable is None:
            self._executable = find_chromium(self.settings.browser_path)

    @property
    def running(self) -> bool:
        return (
            self._process is not None
            and self._process.returncode is None
            and self._cdp is not None
            and not self._cdp.closed
        )

    @property
    def pid(self) -> int | None:
        """Chromium's process id while it runs."""
        return self._process.pid if self._process is not None else None

    @property
    def folder(self) -> Path | None:
        """The temporary folder (profile, downloads, log) while the browser runs."""
        return self._folder

    @property
    def downloads(self) -> Path:
        assert self._folder is not None, "the browser is not started"
        return self._folder / "downloads"

    # -- start -----------------------------------------------------------------------------------
    async def start(self) -> None:
        """Launch Chromium if it is not running (again, if it died since the last use)."""
        async with self._lock:
            if self.running and await self._responds():
                return
            self.check()
            await self._shutdown()  # what is left of a browser that died
            started = time.monotonic()
            try:
                await self._launch()
            except BaseException:
                await self._shutdown()
                raise
            self.start_seconds = time.monotonic() - started
            self.starts += 1

    async def _responds(self) -> bool:
        """A quick question to the browser: a crash is noticed here, not halfway through a page."""
        assert self._cdp is not None
        try:
            await self._cdp.send("Browser.getVersion", timeout=5.0)
        except CDPError:
            return False
        return True

    async def _launch(self) -> None:
        assert self._executable is not None
        if not self.proxy.running:
            await self.proxy.start()
        self._folder = Path(tempfile.mkdtemp(prefix="deep-researcher-browser-"))
        profile = self._folder / "profile"
        profile.mkdir()
        self.downloads.mkdir()
        as_root = hasattr(os, "geteuid") and os.geteuid() == 0
        args = [*chromium_flags(profile, self.proxy.address, as_root=as_root), "about:blank"]
        # Chromium keeps crash reports and caches under the XDG folders whatever the profile: in
        # the temporary folder too, so nothing is left in the user's home. Its singleton socket goes
        # under TMPDIR, and a socket path longer than about 100 bytes makes it abort at start.
        short = len(str(self._folder)) <= 60 or not Path("/tmp").is_dir()
        env = {
            **os.environ,
            "XDG_CONFIG_HOME": str(self._folder / "config"),
            "XDG_CACHE_HOME": str(self._folder / "cache"),
            "TMPDIR": str(self._folder) if short else "/tmp",
        }
        with (self._folder / "chromium.log").open("wb") as log:
            self._process = await asyncio.create_subprocess_exec(
                str(self._executable),
                *args,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                env=env,
                # Its own session: a Ctrl-C in the terminal reaches the run, which then closes the
                # browser in order, instead of killing the browser in the middle of a page.
                start_new_session=True,
                preexec_fn=_die_with_parent if _LIBC is not None else None,
            )
        self.ws_url = await self._devtools_url(profile)
        self._cdp = await CDPConnection.connect(self.ws_url)
        # Downloads are refused unless a browse session asks for its own folder.
        await self._cdp.send("Browser.setDownloadBehavior", {"behavior": "deny"})

    async def _devtools_url(self, profile: Path) -> str:
        """Wait for Chromium to write DevToolsActivePort (its port and browser path)."""
        assert self._process is not None
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + _START_TIMEOUT
        while time.monotonic() < deadline:
            if self._process.returncode is not None:
                raise BrowserError(
                    f"Chromium exited at start (code {self._process.returncode}): {self._log_tail()}"
                )
            with contextlib.suppress(OSError, ValueError):
                lines = port_file.read_text().split()
                if len(lines) >= 2:
                    return f"ws://127.0.0.1:{int(lines[0])}{lines[1]}"
            await asyncio.sleep(0.02)
        raise BrowserError(f"Chromium did not start within {_START_TIMEOUT:g} seconds: {self._log_tail()}")

    def _log_tail(self) -> str:
        if self._folder is None:
            return "(no log)"
        try:
            lines = (self._folder / "chromium.log").read_text("utf-8", "replace").splitlines()
        except OSError:
            return "(no log)"
        useful = [line for line in lines if "dbus" not in line and line.strip()]  # dbus noise
        return " | ".join(useful[-5:]) or "(no output)"

    # -- use -------------------------------------------------------------------------------------
    async def send(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        session_id: str | None = None,
        timeout: float = 30.0,
    ) -> dict[str, Any]:
        """A DevTools command on the browser's own connection (start() first)."""
        if self._cdp is None:
            raise BrowserError("the browser is not running")
        try:
            return await self._cdp.send(method, params, session_id=session_id, timeout=timeout)
        except CDPError as exc:
            if not self.running:
                raise BrowserError(f"the browser stopped unexpectedly ({exc}); try again") from None
            raise

    @contextlib.asynccontextmanager
    async def tab(self) -> AsyncIterator[Tab]:
        """A fresh tab for one page load (start() first); thrown away afterwards."""
        spare, self._spare = self._spare, None
        tab: Tab | None = None
        if spare is not None:
            with contextlib.suppress(CDPError, BrowserError):
                tab = await spare
        if tab is None:
            tab = await self._new_tab()
        try:
            yield tab
        finally:
            # Thrown away and replaced in the background, after the load: preparing the next tab
            # during a load would slow the load itself (a new renderer process competes for CPU).
            self._later(tab.dispose())
            if self.running and self._spare is None:
                self._spare = asyncio.create_task(self._new_tab(), name="browser-spare-tab")

    def _later(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self._chores.add(task)
        task.add_done_callback(self._chores.discard)

    async def _new_tab(self) -> Tab:
        created = await self.send("Target.createBrowserContext", {"disposeOnDetach": True})
        context = created["browserContextId"]
        try:
            await self.send("Browser.setDownloadBehavior", {"behavior": "deny", "browserContextId": context})
            target = await self.send(
                "Target.createTarget", {"url": "about:blank", "browserContextId": context}
            )
            attached = await self.send(
                "Target.attachToTarget", {"targetId": target["targetId"], "flatten": True}
            )
            tab = Tab(self, context, attached["sessionId"])
            await tab.call("Page.addScriptToEvaluateOnNewDocument", {"source": TRACK_REQUESTS_JS})
        except BaseException:
            with contextlib.suppress(CDPError, BrowserError):
                await self.send("Target.disposeBrowserContext", {"browserContextId": context}, timeout=10.0)
            raise
        return tab

    async def close_pages(self) -> None:
        """Close the tabs a browse task left in the default context, keeping one blank tab (the
        next task starts from a clean window; page-load contexts are not touched)."""
        contexts = set((await self.send("Target.getBrowserContexts")).get("browserContextIds", []))
        targets = (await self.send("Target.getTargets")).get("targetInfos", [])
        pages = [t for t in targets if t.get("type") == "page" and t.get("browserContextId") not in contexts]
        await self.send("Target.createTarget", {"url": "about:blank"})
        for page in pages:
            with contextlib.suppress(CDPError):
                await self.send("Target.closeTarget", {"targetId": page["targetId"]})

    # -- end -------------------------------------------------------------------------------------
    async def aclose(self) -> None:
        async with self._lock:
            await self._shutdown()
            await self.proxy.aclose()

    async def _shutdown(self) -> None:
        """End the process (politely first), the DevTools connection, and the temporary folder."""
        spare, self._spare = self._spare, None
        if spare is not None:
            spare.cancel()
            await asyncio.gather(spare, return_exceptions=True)
        if self._chores:
            await asyncio.gather(*self._chores, return_exceptions=True)
        cdp, self._cdp = self._cdp, None
        process, self._process = self._process, None
        if cdp is not None:
            if process is not None and process.returncode is None:
                with contextlib.suppress(CDPError):
                    await cdp.send("Browser.close", timeout=3.0)
            await cdp.close()
        if process is not None:
            try:
                await asyncio.wait_for(process.wait(), timeout=5.0)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                await process.wait()
        folder, self._folder = self._folder, None
        if folder is not None:
            # A browser that died may leave helper processes that write a moment longer.
            for _attempt in range(3):
                await asyncio.to_thread(shutil.rmtree, folder, True)
                await asyncio.sleep(0.05)
                if not folder.exists():
                    break
        self.ws_url = None


def browser_for(ctx: ActionContext) -> Browser:
    """The run's browser (not started yet on first call), kept in the run's services, which close
    it when the run ends."""
    return ctx.services.get(Browser, lambda: Browser(ctx.settings))
