"""The `/schema` pages, served with no request to a CDN, so they work offline.

Swagger UI's JavaScript, CSS and icon come from the `flask-swagger-ui`
package (a dependency in pyproject.toml: the Swagger UI 5 distribution, the
first that reads OpenAPI 3.1, which Litestar writes), served from its
installed `dist` folder at ASSETS; nothing is copied into this repository,
and the package's Flask code is never imported: only its files are read. Only the Swagger page is
offered (at /schema and /schema/swagger): Litestar's other pages (ReDoc,
Elements, RapiDoc, Scalar) load their code from CDNs and are left out."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import SwaggerRenderPlugin
from litestar.static_files import create_static_files_router

ASSETS = "/static/swagger-ui"


def swagger_ui_folder() -> Path:
    """The installed Swagger UI distribution (found without importing the
    package, whose __init__ imports Flask)."""
    spec = importlib.util.find_spec("flask_swagger_ui")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("flask-swagger-ui is not installed: the /schema pages need its Swagger UI files")
    return Path(next(iter(spec.submodule_search_locations))) / "dist"


def openapi_config() -> OpenAPIConfig:
    swagger = SwaggerRenderPlugin(
        path=["/", "/swagger"],
        js_url=f"{ASSETS}/swagger-ui-bundle.js",
        css_url=f"{ASSETS}/swagger-ui.css",
        standalone_preset_js_url=f"{ASSETS}/swagger-ui-standalone-preset.js",
        favicon=f"<link rel='icon' type='image/png' href='{ASSETS}/favicon-32x32.png'>",
    )
    return OpenAPIConfig(title="Hanamichi", version="1", path="/schema", render_plugins=[swagger])


def assets_router():
    """Swagger UI's files, straight from the installed package."""
    return create_static_files_router(
        path=ASSETS,
        directories=[swagger_ui_folder()],
        include_in_schema=False,
        name="swagger-ui-assets",
    )
