# plybits service image: `docker build -t plybits . && docker run -p 8000:8000 plybits`
# The base image is pinned to a CPython patch release. That this tag is published could not be checked from the
# machine this was written on (no container registry reachable there): `docker pull python:3.11.13-slim` tells.
# To move on, name the newest python:3.11.x-slim (both stages), rebuild and run the tests.
#
# Two stages: `build` has the C compiler, mypy and setuptools and makes the compiled wheel; the image itself
# (the last stage) installs that wheel and the runtime dependencies only: no compiler, mypy or setuptools ship.

FROM python:3.11.13-slim AS build

ENV PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# The C compiler first, in a layer of its own: no change of the pins or the code downloads it again.
RUN apt-get update \
    && apt-get install -y --no-install-recommends gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /srv/plybits

# Every pin (runtime dependencies, the build backend and mypyc), before the code: rebuilt only when they change.
COPY constraints.txt ./
RUN pip install -r constraints.txt

# The package (runtime code only, no test extras), built with the pinned backend (setuptools, through
# tools/build_backend.py) and compiled: mypyc turns the hot core into C extension modules (docs/architecture.md,
# "Compiled build").
COPY pyproject.toml setup.py README.md ./
COPY tools/build_backend.py ./tools/
COPY codecs ./codecs
COPY app ./app
RUN PLYBITS_COMPILE=1 pip wheel . --no-deps --no-build-isolation --wheel-dir /wheels

FROM python:3.11.13-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    FORWARDED_ALLOW_IPS=127.0.0.1

WORKDIR /srv/plybits

# The runtime dependencies (pyproject.toml's), at the versions constraints.txt pins, before the code. /data (owned
# by the service's user) is where compose.yaml mounts the shared archive folder.
COPY constraints.txt pyproject.toml ./
RUN python -c "import tomllib; print(*tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies'], sep='\n')" \
        > runtime-requirements.txt \
    && pip install -c constraints.txt -r runtime-requirements.txt \
    && useradd --system --create-home --uid 10001 plybits \
    && mkdir /data && chown plybits /data

# The compiled wheel; the last command fails the build if any module of the core is not loaded compiled.
COPY --from=build /wheels /wheels
RUN pip install --no-deps /wheels/*.whl \
    && rm -rf /wheels \
    && cd / && python -c "from plybits.compiled import MODULES, compiled_modules; assert compiled_modules() == list(MODULES)"

USER plybits
EXPOSE 8000

# The service's probe. compose.yaml gives its Dask scheduler and workers probes of their own.
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2).status != 200)"]

# `plybits serve` runs uvicorn with the service's own settings: uvicorn's access log off (the service writes one
# JSON line a request, PLYBITS_ACCESS_LOG), idle connections kept PLYBITS_KEEP_ALIVE_SECONDS (75; uvicorn's own
# 5 s races clients that reuse a pooled connection), and X-Forwarded-* trusted only from the addresses in
# FORWARDED_ALLOW_IPS (uvicorn reads it): `docker run -e FORWARDED_ALLOW_IPS=10.0.0.2 ...` names your proxy.
CMD ["plybits", "serve", "--host", "0.0.0.0", "--port", "8000"]
