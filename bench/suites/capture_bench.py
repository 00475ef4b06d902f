"""SessionEnd capture as a whole process: ours against the published release (0.1.3).

    uv run nox -s bench   # or: ANAMNESIS_PUBLISHED_PYTHON=... python -m bench.suites.capture_bench

Claude Code gives SessionEnd hooks 1.5 s by default; the note must be written within that
(the sync then runs in the background). Measured on the largest transcript fixture in
../shared and on a generated 3 MB transcript, into a store of 2,000 notes.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.common import corpus
from bench.common.detached import wait_for_detached
from bench.common.hook_runs import build_store
from bench.common.places import TRANSCRIPTS

FIXTURES = TRANSCRIPTS
DETACHED_DEADLINE_S = 120.0


def big_transcript(path: Path, size: int = 3_000_000) -> Path:
    with path.open("w", encoding="utf-8") as handle:
        first = {"type": "user", "cwd": str(path.parent), "sessionId": "big",
                 "message": {"content": "Refactor the ingest worker"}}  # fmt: skip
        handle.write(json.dumps(first) + "\n")
        index = 0
        while handle.tell() < size:
            index += 1
            edited = f"{path.parent}/src/mod_{index % 40}.py"
            text = {"type": "text", "text": f"step {index}: " + "reasoning " * 150}
            edit = {"type": "tool_use", "name": "Edit", "input": {"file_path": edited}}
            blocks = [text, edit]
            line = {"type": "assistant", "message": {"id": f"m{index}", "content": blocks}}
            handle.write(json.dumps(line) + "\n")
    return path


def run_capture(command: list[str], home: Path, transcript: Path, session: str) -> float:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["ANAMNESIS_HOME"] = str(home)
    event = {"hook_event_name": "SessionEnd", "session_id": session,
             "transcript_path": str(transcript), "cwd": str(transcript.parent)}  # fmt: skip
    payload = json.dumps(event)
    started = time.perf_counter()
    subprocess.run(command, input=payload.encode(), capture_output=True, env=env, check=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    count, runs = (300, 5) if args.quick else (2000, 11)
    published = os.environ.get("ANAMNESIS_PUBLISHED_PYTHON")
    hook = Path(sys.executable).parent / "anamnesis-hook"
    contenders = {"ours": (sys.executable, [str(hook), "capture", "--no-sync"])}
    if published:
        tool = str(Path(published).parent / "anamnesis")
        contenders["published"] = (published, [tool, "capture", "--no-sync"])
    with tempfile.TemporaryDirectory(prefix="anamnesis-capture-bench-") as tmp:
        root = Path(tmp)
        notes = corpus.write_jsonl(corpus.generate(count), root / "notes.jsonl")
        inputs = {"3 MB generated": big_transcript(root / "big.jsonl")}
        if FIXTURES.is_dir():
            largest = max(FIXTURES.glob("*.jsonl"), key=lambda p: p.stat().st_size)
            inputs = {f"fixture {largest.name}": largest, **inputs}
        for name, (python, _command) in contenders.items():
            build_store(python, root / name, notes)
        results: dict[str, dict[str, float]] = {}
        for label, transcript in inputs.items():
            samples: dict[str, list[float]] = {name: [] for name in contenders}
            for run in range(runs + 1):
                for name, (_python, command) in contenders.items():
                    seconds = run_capture(command, root / name, transcript, f"{label}-{run}")
                    if run:  # the first run warms bytecode caches
                        samples[name].append(seconds)
            results[label] = {name: statistics.median(v) * 1000 for name, v in samples.items()}
        # A capture queues its note and returns; a detached worker files it. Let the
        # workers finish before the stores are removed (else they write into a folder
        # being deleted, and the removal fails).
        for name in contenders:
            wait_for_detached(root / name, DETACHED_DEADLINE_S)
    print(f"\n== capture as a process into a {count}-note store (medians over {runs} runs) ==")
    for label, by_name in results.items():
        cells = " | ".join(f"{name} {ms:7.1f} ms" for name, ms in by_name.items())
        verdict = "OK" if by_name["ours"] <= 1500 else "MISSED"
        print(f"{label:>45}: {cells} | SessionEnd budget 1500 ms: {verdict}")
    print(json.dumps({"bench": "capture", "notes": count, "median_ms": results}))


if __name__ == "__main__":
    main()
