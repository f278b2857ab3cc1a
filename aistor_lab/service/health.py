"""Unauthenticated liveness answers, at our own path and at MinIO's (which tools probe)."""

from tornado.web import RequestHandler


class HealthHandler(RequestHandler):
    def initialize(self, services) -> None:
        self.services = services

    def get(self, *_args) -> None:
        self.set_header("Server", "aistor-lab")
        self.write({"status": "ok", "endpoint": self.services.settings.endpoint})

    def head(self, *_args) -> None:
        self.set_header("Server", "aistor-lab")
        self.finish()


ROUTES = [r"/_aistor/health", r"/minio/health/(?:live|ready|cluster)"]
