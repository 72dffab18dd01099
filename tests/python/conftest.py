"""Shared pytest setup: where the test databases are, and the ``gpu`` marker (tests that need a CUDA device skip,
saying so, without one)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

SOURCE_DIR = Path(os.environ.get("MPGEMM_SOURCE_DIR", Path(__file__).resolve().parents[2]))
DB_DIR = Path(os.environ.get("MPGEMM_TEST_DB_DIR", SOURCE_DIR / "tests" / "data" / "db"))


def cuda_device_present() -> bool:
    """A CUDA device this process can use, asked through torch when it is installed, else through libmpgemm."""
    try:
        import torch

        return bool(torch.cuda.is_available())
    except ImportError:
        pass
    try:
        import mpgemm

        lib = mpgemm.Library(DB_DIR / "h200_rerank_three_cubes.db")
        lib.plan(64, 64, 64)
        return True
    except Exception:  # NoDevice, or no extension
        return False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if cuda_device_present():
        return
    skip = pytest.mark.skip(reason="gpu: no CUDA device on this machine")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def db_dir() -> Path:
    return DB_DIR
