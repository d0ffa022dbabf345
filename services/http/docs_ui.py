"""The `/schema` pages, served with no request to a CDN, so they work offline.

Swagger UI's JavaScript, CSS and icon come from the `swagger-ui-bundle`
package (a dependency in pyproject.toml), served from its installed folder
at ASSETS; nothing is copied into this repository. Only the Swagger page is
offered (at /schema and /schema/swagger): Litestar's other pages (ReDoc,
Elements, RapiDoc, Scalar) load their code from CDNs and are left out."""

from __future__ import annotations

from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import SwaggerRenderPlugin
from litestar.static_files import create_static_files_router
from swagger_ui_bundle import swagger_ui_path

ASSETS = "/static/swagger-ui"


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
        directories=[swagger_ui_path],
        include_in_schema=False,
        name="swagger-ui-assets",
    )
