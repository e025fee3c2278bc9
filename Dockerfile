# hindsight's MCP server over streamable HTTP, with the store on a volume.
# Build and run with `docker compose up -d` (see docs/docker.md).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /src
COPY pyproject.toml README.md ./
COPY hindsight_cli ./hindsight_cli
# The postgres extra: the same image serves a team store (docker-compose.team.yml).
RUN pip install ".[postgres]" && rm -rf /src

# A fixed non-root user; /data is created here, owned by it, so a new named volume mounted
# on /data starts out with the same owner.
RUN useradd --create-home --uid 10001 hindsight \
    && mkdir -p /data/store /data/home \
    && chown -R hindsight:hindsight /data
USER hindsight
WORKDIR /home/hindsight

# The store, and HINDSIGHT_HOME (config and the unpacked embedding model), both on the volume.
ENV HINDSIGHT_STORE=/data/store \
    HINDSIGHT_HOME=/data/home
VOLUME ["/data"]

EXPOSE 8765
CMD ["hindsight", "mcp", "--transport", "http", "--host", "0.0.0.0", "--port", "8765"]
