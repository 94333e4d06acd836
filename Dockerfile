# Munda Arbitrator in a container (docs/hosting.md): the README's install and run
# commands on an official Python image, the data in the /data volume.
FROM python:3.11-slim

RUN useradd --system --create-home --home-dir /home/munda munda \
    && mkdir -p /app /data && chown munda:munda /app /data && chmod 0700 /data
WORKDIR /app
# The build folder less what .dockerignore leaves out: tokens (*.env), keys, config.toml,
# databases and backups never enter a layer (docs/hosting.md, "In a container").
COPY --chown=munda:munda . /app
USER munda
RUN python3 -m venv .venv && .venv/bin/pip install -e .

# The database, its lock and its backups; the token comes from the environment
# (docker run -e MUNDA_DISCORD_TOKEN or --env-file), never from the image.
ENV MUNDA_DATABASE_PATH=/data/munda-arbitrator.db \
    MUNDA_DATABASE_BACKUP_DIR=/data/backups \
    PYTHONUNBUFFERED=1
VOLUME ["/data"]
STOPSIGNAL SIGTERM
CMD [".venv/bin/munda-arbitrator", "run"]
