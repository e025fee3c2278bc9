# hindsight's MCP server over streamable HTTP, with the store on a volume, behind bearer tokens.
# Make a token, then start it (see docs/docker.md):
#   docker compose run --rm hindsight mcp token AGENT
#   docker compose up -d
# The image's ENTRYPOINT is `hindsight`: `docker run IMAGE search "x"` runs that command, and with no
# arguments it starts the server (the CMD).
FROM python:3.11-slim

# Where the source came from, for the image's label (docker build --build-arg SOURCE_URL=…).
ARG SOURCE_URL=""
LABEL org.opencontainers.image.title="hindsight" \
      org.opencontainers.image.description="Local-first memory for LLM agents: hindsight's MCP server over streamable HTTP, and its CLI." \
      org.opencontainers.image.version="0.1.0" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.source="${SOURCE_URL}"

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
# The slim image has no curl: `hindsight mcp health` asks the server on loopback (any HTTP answer
# below 500, such as the 401 a request without a token gets, means it is up).
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["hindsight", "mcp", "health", "--port", "8765"]

ENTRYPOINT ["hindsight"]
# Every interface, so that a published port reaches the server; and tokens, without which hindsight
# refuses to serve a non-loopback address (until `hindsight mcp token AGENT` has made the file, the
# server exits with a message saying so).
CMD ["mcp", "--transport", "http", "--host", "0.0.0.0", "--port", "8765", \
     "--tokens", "/data/store/mcp-tokens.json"]
