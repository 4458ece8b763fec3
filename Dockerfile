# citegate app image: CPU torch first (or pip resolves a multi-GB CUDA build), then the pins.
# The base is pinned by its exact tag (Python patch release and Debian release), so a rebuild
# gets the same interpreter; move it on purpose, with the constraints.
FROM python:3.11.13-slim-bookworm
WORKDIR /app
COPY pyproject.toml constraints.txt README.md ./
COPY server ./server
COPY ingest ./ingest
COPY evals ./evals
COPY citegate ./citegate
COPY config ./config
COPY models ./models
# Editable, so the code's repo root (server.core.paths.repo_root) is /app: the default support
# model names its verifier as models/verifier, relative to it. A plain install put the code in
# site-packages, where that folder is not.
RUN pip install --no-cache-dir torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu \
 && pip install --no-cache-dir -c constraints.txt -e .
# Run as an unprivileged user that owns only /data (the index, traces) and reads /corpus.
RUN groupadd --system --gid 10001 citegate \
 && useradd --system --uid 10001 --gid citegate --home-dir /home/citegate --create-home citegate \
 && mkdir -p /data /corpus \
 && chown citegate:citegate /data
ENV HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 CITEGATE_CONFIG_DIR=/app/config \
    CITEGATE_DATA_DIR=/data
USER citegate
EXPOSE 8000
# Ready (not just alive): /readyz is 503 until the models and the store are loaded.
HEALTHCHECK --interval=10s --timeout=5s --start-period=180s --retries=3 \
  CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/readyz', timeout=4).status != 200)"]
CMD ["citegate", "serve", "--host", "0.0.0.0", "--port", "8000"]
