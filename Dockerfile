# plybits service image: `docker build -t plybits . && docker run -p 8000:8000 plybits`
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /srv/plybits

# Install the package (runtime dependencies only, no test extras), then drop root.
COPY pyproject.toml README.md ./
COPY codecs ./codecs
COPY app ./app
RUN pip install . \
    && useradd --system --create-home --uid 10001 plybits

USER plybits
EXPOSE 8000

HEALTHCHECK --interval=30s --timeout=3s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2).status != 200)"]

# Idle connections kept as long as `plybits serve` keeps them (Settings.keep_alive_seconds; a test holds them
# equal): uvicorn's own 5 s races clients that reuse a pooled connection.
CMD ["uvicorn", "app.main:app", "--host", "0.0.0.0", "--port", "8000", "--proxy-headers", "--timeout-keep-alive", "75"]
