# pokerfloor: the Discord bot in a container. Build: docker build -t pokerfloor .
# Run with compose.yaml (PostgreSQL beside it), or alone with an SQLite file in a volume:
#   docker run --env-file .env -v pokerfloor-data:/data pokerfloor
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DATABASE_URL=sqlite:////data/pokerfloor.db

WORKDIR /src
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY rulings ./rulings
COPY storage ./storage
RUN pip install . && rm -rf /src

RUN useradd --create-home --uid 10001 pokerfloor && mkdir /data && chown pokerfloor /data
USER pokerfloor
WORKDIR /data
VOLUME ["/data"]

# `pokerfloor run` closes cleanly on SIGTERM (docker stop): its clock leases are released and
# another instance takes the clocks over at once.
STOPSIGNAL SIGTERM
CMD ["pokerfloor", "run"]
