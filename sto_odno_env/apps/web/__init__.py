"""The web table: play 101 in the browser against the bots and trained policies of the
agent registry, step through records, browse the ladder (``python -m sto_odno_env.web``).

Needs the ``web`` extra (``pip install -e '.[web]'``: Starlette, uvicorn, Jinja2,
python-multipart). The server deals and keeps every game; a page or JSON answer carries
only what the human's seat may know (:mod:`.view`). This package is the kit's top layer:
nothing else in the kit imports it. See docs/web.md.
"""

REQUIRED = ("starlette", "uvicorn", "jinja2", "python_multipart")
INSTALL_WEB = "pip install 'sto-odno-env[web]' (in a clone: pip install -e '.[web]')"


def missing_packages() -> list[str]:
    """The packages of the ``web`` extra that cannot be imported (looked up, not loaded)."""
    import importlib.util

    missing = []
    for name in REQUIRED:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            missing.append(name.replace("_", "-"))
    return missing


def create_app(*args, **kwargs):
    """The Starlette application (:func:`sto_odno_env.apps.web.app.create_app`)."""
    from .app import create_app as create

    return create(*args, **kwargs)


__all__ = ["INSTALL_WEB", "create_app", "missing_packages"]
