"""Print the app's OpenAPI document (``make openapi`` writes it to openapi/openapi.json)."""

from __future__ import annotations

import json

from app.main import create_app
from app.settings import Settings


def render() -> str:
    """The OpenAPI document as stable, indented JSON."""
    return json.dumps(create_app(Settings()).openapi(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    print(render(), end="")
