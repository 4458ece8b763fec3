# citegate app image: CPU torch first (or pip resolves a multi-GB CUDA build), then the pins.
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml constraints.txt README.md ./
COPY server ./server
COPY ingest ./ingest
COPY evals ./evals
COPY citegate ./citegate
COPY config ./config
RUN pip install --no-cache-dir torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu \
 && pip install --no-cache-dir -c constraints.txt .
ENV HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 CITEGATE_CONFIG_DIR=/app/config
EXPOSE 8000
CMD ["citegate", "serve", "--host", "0.0.0.0", "--port", "8000"]
