"""The contradiction set (``bench/contradictions/pairs.jsonl``) as records, and the plain
"same title" finder the store's contradiction finder is measured beside.

A pair is two notes of one project: the older one written first, the newer one after it,
labelled ``contradicts`` (both cannot hold now) or ``compatible`` (they only look alike).
``kind`` says how: for a contradiction, what differs (the store's ``Difference.kind``
words); for a look-alike, why both hold. The README beside the set has the label rules.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bench.common.places import CONTRADICTIONS

if TYPE_CHECKING:
    from anamnesis.store import Memory, MemoryStore

LABELS = ("contradicts", "compatible")
# Issue 42's targets for the finder's candidates on the set.
RECALL_TARGET = 0.85
FALSE_PAIR_TARGET = 0.10
# ``dev``: the finder is tuned on it; ``held_out``: written with dev, read while writing
# rules in issue 42's second session; ``fresh``: written later, blind, after the finder's
# tuning then, and tuned on since its third session; ``fresh2``: a second blind split,
# written by a helper who never read the finder while it was being tuned on ``fresh``,
# committed before any run; ``fresh3``: a third, written the same way while the finder was
# tuned on the others; ``fresh4``: a fourth, written the same way later still; ``fresh5``:
# a fifth, written the same way while ``fresh4`` was being measured; ``fresh6``: a sixth,
# written the same way, on the same day, while the finder was tuned on the others;
# ``fresh7``: a seventh, written the same way beside ``fresh6``, by another helper;
# ``fresh8`` and ``fresh9``: an eighth and a ninth, written the same way at one time by two
# helpers, one in web, backend, data and ML projects, the other in infrastructure, devices,
# desktop, games, docs, science and tooling. ``fresh2`` to ``fresh8`` were each measured
# blind, then read and tuned on (2026-11-30); ``fresh9``, measured blind twice, then read
# and tuned on (2026-11-30, the day's second session); ``fresh10``: a tenth,
# written blind the same way on 2026-11-30 by a helper, in mobile, commerce, CMS, compiler,
# security, bioinformatics, media, HPC, observability, mail, networking, trading and
# accessibility projects; ``fresh11``: an eleventh, written blind the same way on 2026-11-30
# by another helper, in healthcare integration, warehouse, LMS, e-signature, embedded Rust,
# notebook, geospatial, scraping, monorepo build, email marketing, chat bot, search, DNS,
# backup, secrets and dotfiles projects, measured blind twice, then read and tuned on with
# ``fresh9``; ``fresh12``: a twelfth, written blind the same way on
# 2026-11-30 by a helper, in stream processing, chat and VoIP servers, developer portal, error
# tracking, time-series IoT, service mesh, CRM, fediverse, ERP, LoRaWAN, load balancer, forum
# and CI runner projects; ``fresh13``: a thirteenth, written blind at the same time by another
# helper, in mainframe batch, SAP integration, factory OPC UA, game server, actor cluster,
# time-series database, event bus, metrics platform, book publishing, dataframe pipeline,
# fediverse, progressive delivery, desktop auto-update and telephony projects; ``fresh14``: a
# fourteenth, written blind the same way later that day by another helper, as AI coding
# agents' memory notes on a Rails/Kamal SaaS, a Go gRPC service on GKE, a SvelteKit app on
# Vercel, a uv-built PyPI CLI, a Rust TUI, an AWS landing zone, a tRPC/Prisma app, a
# DRF/Celery API, an Expo app, a BigQuery warehouse, a Go operator, a WXT browser extension,
# a Spring Boot 3 service and a Deno Fresh site; ``fresh15``: a fifteenth, written blind the
# same way on 2026-11-30 by another helper, in a JUCE audio plugin, a Lightning routing node,
# an Obsidian plugin, Ansible network automation for Cisco and Juniper switches, a Figma
# plugin, an OpenSCAD parts library, a crypto grid-trading bot, a course autograder, a
# Minecraft Fabric mod, a KiCad board, an Emacs package, an Apollo Router supergraph, a
# Roblox game and a WooCommerce plugin; ``fresh16``: a sixteenth, written blind the same way
# on 2026-11-30 by another helper, in a Shopify Liquid theme, Crossplane compositions, a
# FreeBSD jail host, Tekton pipelines, a Spring WebFlux service, an Unreal Engine dedicated
# server, a Flutter desktop app, a Zig CLI, a MinIO cluster, Nerves firmware, k6 load tests,
# a Flink job, a .NET MAUI app and a Kong gateway; ``fresh15`` and ``fresh16`` were each
# counted blind, then read and tuned on (2026-11-30, the day's fourth session);
# ``fresh17``: a seventeenth, written blind the same way on 2026-11-30 by another helper,
# in a Phoenix LiveView booking app, an Astro Starlight docs site, a Pulumi Python stack on
# GCP, a Hugo blog on Netlify, an OCaml compiler, a PowerShell DSC estate, a NativeScript
# Svelte app, a Sidekiq mailer, a Forgejo/Woodpecker forge, a Lean 4 library, CUDA
# kernels, a Capacitor app, a Bun/Elysia API and Packer images, never run before it was
# committed; ``fresh18``: an eighteenth, written blind at the same time by a third helper,
# from the label rules and four lines of the file only, in an RP2040 MIDI pedal's embedded
# Rust, an Elasticsearch cluster, a Vue 3 + Pinia back office, a Cloudflare Worker with D1,
# a pandas/Jupyter ridership analysis, a Laravel shop, an Android app's Gradle build,
# Temporal workflows in Go, a Nix flake dev shell, a Nextcloud instance, a Forgejo forge
# with runners, a Home Assistant setup with Zigbee2MQTT and ESPHome, a Traefik edge on
# Docker Swarm and a Metabase deployment, committed before any run; ``fresh19``: a
# nineteenth, written blind the same way on 2026-11-30 by another helper, from the label
# rules and four lines of the file only, in a Wagtail museum site, an iCE40 FPGA VGA core,
# an OpenWrt router config, a Jellyfin media stack, an ArduPilot survey quad, an Ethereum
# validator with geth and Lighthouse, Typst report templates, a Jekyll docs site on GitHub
# Pages, an F# Giraffe rota API, Fluent Bit log shipping, a Headscale tailnet, an Immich
# photo server, an Ember.js volunteer portal and a Rasa helpdesk bot, committed before any
# run; ``fresh20``: a twentieth, written blind at the same time by a third helper, from the
# label rules and four lines of the file only, as coding agents' and developers' memory
# notes on a Vite + React SPA with TanStack Query, a Terraform stack on Azure, a Rust Axum
# API with sqlx, a Python library published with Poetry and tox, a Hardhat/ethers dapp
# front end, a Streamlit dashboard, a Wails desktop app, a DVC model pipeline, self-hosted
# n8n, a Medusa store, a Storybook design system, a PocketBase backend, Salt states and a
# Sanity Studio, committed before any run; ``fresh21`` and ``fresh22``: two more, written
# blind at once by two helpers from the label rules and the format only, ``fresh21`` as a
# small team's shared memory (several hands, agents' session summaries, imported wiki
# pages) on a Go gRPC service, a Kotlin Multiplatform app, ClickHouse fed by Vector, a
# Proxmox homelab, a Hydrogen storefront, nRF52 firmware, a LiveView CRM, Airflow on
# Kubernetes, Keycloak SSO, a Servant API, a WebRTC gateway, Nomad and Consul, a Livewire
# portal and a Bazel C++ gateway, ``fresh22`` as a solo developer's everyday facts (flags,
# log levels, schedules, limits, renamed variables, replaced libraries) on fourteen
# everyday projects, both committed before any run; ``fresh23``: written blind on
# 2026-12-01 by a helper from the label rules and the format only, in scientific Python and
# HPC, firmware, trading back-offices, mobile games, ERP and CRM customisation, GIS, media
# processing and an internal developer platform, committed before any run; ``fresh24``:
# written blind at the same time by another helper, in e-commerce and payments, healthcare
# data, IoT fleets, browser extensions and desktop apps, streaming data, self-hosted homelab
# services, open-source libraries and education platforms, committed before any run. Only
# the tuning splits' misses are ever named (the bench's ``TUNING_SPLITS``).
SPLITS = (
    "dev", "held_out", "fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7",
    "fresh8", "fresh9", "fresh10", "fresh11", "fresh12", "fresh13", "fresh14", "fresh15",
    "fresh16", "fresh17", "fresh18", "fresh19", "fresh20", "fresh21", "fresh22", "fresh23",
    "fresh24",
)  # fmt: skip
# The splits whose misses and false pairs the bench's ``--misses`` names: dev, and fresh
# to fresh9, fresh11, fresh15, fresh16, fresh21 and fresh22, tuned on since (issue 42; the
# last four after each was counted blind). Any other split (held_out, the validation and
# test splits, a blind one added later) is only counted.
TUNING_SPLITS = (
    "dev", "fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7", "fresh8",
    "fresh9", "fresh11", "fresh15", "fresh16", "fresh21", "fresh22",
)  # fmt: skip
# The splits never read: ``VALIDATION_SPLITS`` chose which rules stay by their counts,
# ``TEST_SPLITS`` chose nothing (the honest estimate of a stranger's notes).
VALIDATION_SPLITS = ("fresh10", "fresh12", "fresh17", "fresh18", "fresh23", "fresh24")
TEST_SPLITS = ("fresh13", "fresh14", "fresh19", "fresh20")
# What differs between two contradicting notes (the store's Difference kinds).
CONTRADICTING_KINDS = (
    "number", "version", "port", "path", "flag", "command", "name", "url", "negation",
    "replacement",
)  # fmt: skip
# Why two look-alike notes both hold.
COMPATIBLE_KINDS = (
    "restated", "elaborated", "different_subject", "both_hold", "units", "scope",
    "agreeing_negation",
)  # fmt: skip
KINDS = {"contradicts": CONTRADICTING_KINDS, "compatible": COMPATIBLE_KINDS}


@dataclass(frozen=True, slots=True)
class Side:
    type: str
    title: str
    body: str
    tags: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Pair:
    id: str
    split: str
    label: str
    kind: str
    project: str
    older: Side
    newer: Side
    source: str

    @property
    def contradicts(self) -> bool:
        return self.label == "contradicts"


def _side(raw: dict[str, object]) -> Side:
    tags = raw["tags"]
    assert isinstance(tags, list)
    return Side(str(raw["type"]), str(raw["title"]), str(raw["body"]), tuple(map(str, tags)))


def load(path: Path = CONTRADICTIONS) -> list[Pair]:
    pairs = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        raw = json.loads(line)
        pairs.append(
            Pair(
                id=raw["id"], split=raw["split"], label=raw["label"], kind=raw["kind"],
                project=raw["project"], older=_side(raw["older"]), newer=_side(raw["newer"]),
                source=raw["source"],
            )
        )  # fmt: skip
    return pairs


# --- the "same title" baseline ----------------------------------------------------------
#
# Two live notes of one project (or both global), not both episodic (the store's pairing
# rules), whose titles are equal once normalized or share most of their words: the Jaccard
# index of their title words (lower case, letters and digits, the words below left out) is
# at least one half. What a person scanning a list of titles would catch.

TITLE_STOP_WORDS = frozenset(
    ("a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "how", "in", "is", "it",
     "of", "on", "or", "our", "the", "to", "we", "what", "when", "where", "which", "why", "with")
)  # fmt: skip
SAME_TITLE_JACCARD = 0.5


def title_words(title: str) -> frozenset[str]:
    return frozenset(re.findall(r"[a-z0-9]+", title.lower())) - TITLE_STOP_WORDS


def same_title(a: str, b: str) -> bool:
    words_a, words_b = title_words(a), title_words(b)
    if not words_a or not words_b:
        return False
    return len(words_a & words_b) / len(words_a | words_b) >= SAME_TITLE_JACCARD


def pairable(type_a: str, project_a: str, type_b: str, project_b: str) -> bool:
    """The store's rule for a candidate pair: one project, never two episodic notes."""
    return project_a == project_b and not (type_a == "episodic" and type_b == "episodic")


@dataclass(frozen=True, slots=True)
class Titled:
    id: str
    type: str
    project: str
    title: str


def same_title_pairs(notes: Iterable[Titled]) -> Iterator[tuple[str, str]]:
    """Every pair the baseline proposes among ``notes`` (live notes only, the caller's
    choice), grouped by project so the cost is the sum of each project's pairs."""
    by_project: dict[str, list[tuple[Titled, frozenset[str]]]] = {}
    for note in notes:
        by_project.setdefault(note.project, []).append((note, title_words(note.title)))
    for group in by_project.values():
        for index, (a, words_a) in enumerate(group):
            for b, words_b in group[index + 1 :]:
                if a.type == "episodic" and b.type == "episodic":
                    continue
                union = words_a | words_b
                if union and len(words_a & words_b) / len(union) >= SAME_TITLE_JACCARD:
                    yield a.id, b.id


def write(store: MemoryStore, side: Side, project: str) -> Memory:
    """One side of a pair written into ``store`` as a note of ``project``."""
    return store.write(
        type=side.type, title=side.title, body=side.body, project=project, tags=side.tags,
        machine_id="bench",
    )  # fmt: skip
