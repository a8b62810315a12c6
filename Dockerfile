# plybits service image: `docker build -t plybits . && docker run -p 8000:8000 plybits`
# The base image is pinned to a CPython patch release. That this tag is published could not be checked from the
# machine this was written on (no container registry reachable there): `docker pull python:3.11.13-slim` tells.
# To move on, name the newest python:3.11.x-slim, rebuild and run the tests.
FROM python:3.11.13-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    FORWARDED_ALLOW_IPS=127.0.0.1

WORKDIR /srv/plybits

# Dependencies first, at the versions pinned in constraints.txt: this layer is rebuilt only when the pins
# change, not on every code change.
COPY constraints.txt ./
RUN pip install -r constraints.txt \
    && useradd --system --create-home --uid 10001 plybits

# Then the package itself (runtime code only, no test extras), built with the pinned backend (setuptools, through
# tools/build_backend.py) and compiled: mypyc turns the hot core into C extension modules (docs/architecture.md,
# "Compiled build"). The C compiler is installed and removed in this one layer, so the image ships the extension
# modules and no compiler; the last command fails the build if any module of the core is not loaded compiled.
COPY pyproject.toml setup.py README.md ./
COPY tools/build_backend.py ./tools/
COPY codecs ./codecs
COPY app ./app
RUN apt-get update \
    && apt-get install -y --no-install-recommends gcc libc6-dev \
    && PLYBITS_COMPILE=1 pip install . --no-deps --no-build-isolation \
    && apt-get purge -y --auto-remove gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/* build \
    && cd / && python -c "from plybits.compiled import MODULES, compiled_modules; assert compiled_modules() == list(MODULES)"

USER plybits
EXPOSE 8000

HEALTHCHECK --interval=30s --timeout=3s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2).status != 200)"]

# --proxy-headers trusts X-Forwarded-* only from the addresses in FORWARDED_ALLOW_IPS (uvicorn reads it):
# `docker run -e FORWARDED_ALLOW_IPS=10.0.0.2 ...` names your proxy. uvicorn's own access log is off: the
# service writes one JSON line a request (PLYBITS_ACCESS_LOG). Idle connections are kept as long as
# `plybits serve` keeps them (Settings.keep_alive_seconds; a test holds them equal): uvicorn's own 5 s races
# clients that reuse a pooled connection.
CMD ["uvicorn", "app.main:app", "--host", "0.0.0.0", "--port", "8000", "--proxy-headers", "--no-access-log", "--timeout-keep-alive", "75"]
