"""Records for the replay page: the files listed under ``--records``, and uploaded files.

A listed record is named by its path relative to ``--records`` as the listing gives it:
a name that is not in the listing is unknown, so no client input ever reaches the file
system (symbolic links that lead outside the folder are not listed). An upload is checked
as ``python -m sto_odno_env.replay`` checks a file
(:func:`sto_odno_env.records.replay.replay_lines`,
with the same messages, naming the upload), then kept in memory under an unguessable id;
uploads are bounded in size, number and age. Matches are loaded as
:class:`sto_odno_env.records.playback.Playback` (engine states after every decision), a few kept.
"""

from __future__ import annotations

import secrets
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cachetools import LRUCache, TTLCache

from ...records.playback import Playback
from ...records.replay import RecordError, replay_lines
from .games import RequestError
from .nesting import check_lines

MAX_LISTED = 500  # record files listed at most (the first by name)
MAX_LISTED_BYTES = 64 * 1024 * 1024  # a listed file larger than this is not loaded


@dataclass(frozen=True)
class RecordFile:
    """A record file of the listing."""

    name: str  # relative to --records, with '/'
    path: Path
    size: int


def list_records(root: Path | None) -> dict[str, RecordFile]:
    """The ``*.jsonl`` files under ``root`` (sub-folders included), by relative name."""
    if root is None or not root.is_dir():
        return {}
    base = root.resolve()
    found: dict[str, RecordFile] = {}
    for path in sorted(base.rglob("*.jsonl")):
        if len(found) >= MAX_LISTED:
            break
        try:
            real = path.resolve()
            if not real.is_relative_to(base) or not real.is_file():
                continue
            name = path.relative_to(base).as_posix()
            found[name] = RecordFile(name, real, real.stat().st_size)
        except (OSError, ValueError):
            continue
    return found


@dataclass
class Upload:
    """An uploaded record, checked: its text, file name and match count."""

    id: str
    name: str
    text: str
    matches: int


def check_upload(name: str, data: bytes, max_bytes: int) -> tuple[str, int]:
    """The text of an uploaded record and its match count, or :class:`RequestError`:
    413 for a file over ``max_bytes``, 400 for one that is not UTF-8 JSON Lines or breaks
    the rules (the replayer's message, naming the file and the line)."""
    if len(data) > max_bytes:
        raise RequestError(
            f"the upload is {len(data)} bytes; at most {max_bytes} bytes are accepted", 413
        )
    if not data.strip():
        raise RequestError(f"{name}: the file is empty; a record starts with a 'match' line")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise RequestError(
            f"{name}: byte {error.start} is not UTF-8 text; a record is JSON Lines text"
        ) from None
    check_lines(data, name)  # before the replayer decodes a line nested past the limit
    try:
        matches = replay_lines(name, text.splitlines())
    except RecordError as error:
        raise RequestError(str(error)) from None
    except (ValueError, TypeError, KeyError, IndexError, OverflowError) as error:
        # A record the replayer's checks let through but the engine cannot take (a value
        # of the right type out of every range): refused the same way, never a 500.
        raise RequestError(f"{name}: not a record the engine can replay ({error})") from None
    return text, matches


def safe_name(name: str | None) -> str:
    """An uploaded file's name as shown (its last part, printable, at most 80 characters)."""
    base = (name or "upload.jsonl").replace("\\", "/").rsplit("/", 1)[-1]
    base = "".join(ch for ch in base if ch.isprintable())[:80]
    return base or "upload.jsonl"


class Replays:
    """The listing under ``root``, the uploads, and a cache of loaded matches."""

    def __init__(
        self,
        root: Path | None,
        max_upload_bytes: int = 4 * 1024 * 1024,
        max_uploads: int = 32,
        idle_seconds: float = 1800.0,
        cache_size: int = 16,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.root = root
        self.max_upload_bytes = max_upload_bytes
        self.max_uploads = max_uploads
        self.idle_seconds = idle_seconds
        self.cache_size = cache_size
        self.clock = clock
        # The least recently seen upload goes first when full; one is kept for
        # idle_seconds after it was last seen (upload() stores it again).
        self._uploads: TTLCache[str, Upload] = TTLCache(max_uploads, idle_seconds, timer=clock)
        self._cache: LRUCache[tuple, Playback] = LRUCache(cache_size)
        self._lock = threading.Lock()

    def listing(self) -> dict[str, RecordFile]:
        """The record files under ``--records`` now."""
        return list_records(self.root)

    def add_upload(self, name: str | None, data: bytes) -> Upload:
        """Check and keep an uploaded record; raises :class:`RequestError`."""
        shown = safe_name(name)
        text, matches = check_upload(shown, data, self.max_upload_bytes)
        upload = Upload(secrets.token_urlsafe(18), shown, text, matches)
        with self._lock:
            self._uploads[upload.id] = upload
        return upload

    def upload(self, upload_id: str) -> Upload:
        with self._lock:
            upload = self._uploads.get(upload_id)
            if upload is None:
                raise RequestError(
                    "unknown upload: uploads are kept for "
                    f"{self.idle_seconds / 60:g} minutes; upload the file again",
                    404,
                )
            self._uploads[upload_id] = upload  # seen: its idle clock restarts
        return upload

    def listed_playback(self, name: str, match: int) -> Playback:
        """Match ``match`` of the listed record ``name``; 404 when it is not listed."""
        record = self.listing().get(name)
        if record is None:
            raise RequestError(f"no record {name!r} in the listing of --records", 404)
        if record.size > MAX_LISTED_BYTES:
            raise RequestError(
                f"{name} is {record.size} bytes; the replay page opens files of at most "
                f"{MAX_LISTED_BYTES} bytes (python -m sto_odno_env.play --replay opens it)",
                413,
            )
        stat = record.path.stat()
        key = ("file", name, stat.st_mtime_ns, stat.st_size, match)
        return self._cached(key, lambda: self._load(record.path, name, match))

    def upload_playback(self, upload_id: str, match: int) -> tuple[Upload, Playback]:
        """Match ``match`` of an upload."""
        upload = self.upload(upload_id)

        def load() -> Playback:
            with tempfile.TemporaryDirectory() as folder:
                path = Path(folder) / "record.jsonl"
                path.write_text(upload.text, encoding="utf-8")
                playback = self._load(path, upload.name, match)
            playback.path = upload.name
            return playback

        return upload, self._cached(("upload", upload_id, match), load)

    def _cached(self, key: tuple, load: Callable[[], Playback]) -> Playback:
        with self._lock:
            playback = self._cache.get(key)
        if playback is None:
            playback = load()
            with self._lock:
                self._cache[key] = playback
        return playback

    @staticmethod
    def _load(path: Path, name: str, match: int) -> Playback:
        check_lines(path.read_bytes(), name)  # a listed file is read as an upload is
        try:
            return Playback.load(path, match)
        except RecordError as error:
            message = str(error).replace(str(path), name)
            status = 404 if "is not in the file" in message else 400
            raise RequestError(message.replace("--match", "match"), status) from None


def replay_frame(playback: Playback, step: int) -> dict[str, Any]:
    """What the replay page shows at frame ``step`` (from 1): the frame's state, its lines,
    and the first frame of every round (to jump to)."""
    count = len(playback.frames)
    if not 1 <= step <= count:
        raise RequestError(f"step {step} is not in this match: steps 1..{count}", 404)
    rounds: list[int] = []  # frame index (from 1) where each round's deal is
    for index, frame in enumerate(playback.frames, start=1):
        if any(event["type"] == "round" for _, event in frame.events):
            rounds.append(index)
    frame = playback.frames[step - 1]
    current_round = max((r for r, first in enumerate(rounds, 1) if first <= step), default=1)
    return {
        "frame": frame,
        "step": step,
        "steps": count,
        "round_starts": rounds,
        "round": current_round,
    }
