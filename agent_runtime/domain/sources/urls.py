"""Canonical URLs: the form under which a URL gets its source id, so that one page is one source.

Scheme and host lower-cased, default port and fragment dropped, `/a/` and `/a` the same page,
tracking parameters (`utm_*`, `fbclid`, `gclid`, …) removed. Other query parameters keep their
order: on many sites they select the content. URLs that are not http(s) (`corpus:notes/a.md`, the
local corpus's documents) are kept as they are.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

# Query parameters that only say where a click came from; they never change the page.
_TRACKING_PREFIXES = ("utm_", "pk_", "mtm_", "hsa_")
_TRACKING_PARAMS = frozenset(
    {
        "fbclid", "gclid", "gclsrc", "dclid", "gbraid", "wbraid", "msclkid", "yclid", "twclid",
        "igshid", "mc_cid", "mc_eid", "_ga", "_gl", "_hsenc", "_hsmi", "mkt_tok", "oly_anon_id",
        "oly_enc_id", "vero_id", "rb_clickid", "s_cid", "ref_src", "spm",
    }
)  # fmt: skip
_DEFAULT_PORTS = {"http": 80, "https": 443}


def _is_tracking(name: str) -> bool:
    lowered = name.lower()
    return lowered in _TRACKING_PARAMS or lowered.startswith(_TRACKING_PREFIXES)


def canonical_url(url: str) -> str:
    """The form under which a URL gets its id (see the module docstring)."""
    url = url.strip()
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return url
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        return url
    host = parts.hostname.lower().rstrip(".")
    if ":" in host:
        host = f"[{host}]"
    netloc = host if port is None or port == _DEFAULT_PORTS[scheme] else f"{host}:{port}"
    path = parts.path or "/"
    if len(path) > 1:
        path = path.rstrip("/") or "/"
    query_pairs = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not _is_tracking(k)]
    query = urlencode(query_pairs, doseq=True) if query_pairs else ""
    return urlunsplit((scheme, netloc, path, query, ""))
