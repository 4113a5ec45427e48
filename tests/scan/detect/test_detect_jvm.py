"""Focused checks of the Java and Kotlin detectors (real parsing, no mocks)."""

from __future__ import annotations

from detect_helpers import run_language

from pipeline.scan.detect import deps
from pipeline.scan.detect.jvm.common import Imports
from pipeline.scan.detect.jvm.detector import JavaDetector, KotlinDetector
from pipeline.scan.detect.model import Tool
from pipeline.scan.detect.sdks import SDKS


def _tools(detector: JavaDetector | KotlinDetector, path: str, code: str) -> list[Tool]:
    return [t for t in run_language(detector, {path: code}) if isinstance(t, Tool)]


def test_imports_resolve_nested_and_wildcard_names() -> None:
    imports = Imports.of(b"package a;\nimport io.modelcontextprotocol.spec.McpSchema;\n"
                         b"import io.quarkiverse.mcp.server.*;\n// import dev.langchain4j.agent.tool.Tool;\n")
    assert imports.resolves("McpSchema.Tool", ("io.modelcontextprotocol.spec.McpSchema.Tool",))
    assert imports.resolves("Tool", ("io.quarkiverse.mcp.server",))
    assert not imports.resolves("Tool", ("dev.langchain4j",))


def test_kotlin_sdk_versions_are_found_for_every_artifact() -> None:
    gradle = b'implementation("io.modelcontextprotocol:kotlin-sdk-server:0.7.2")'
    found = deps.Dependencies(deps.parse("build.gradle.kts", gradle))
    dependency = found.find(SDKS["kotlin-mcp"].packages, "src/Main.kt")
    assert dependency is not None
    assert dependency.version == "0.7.2"


def test_positional_java_annotations_with_nulls_and_boolean_objects() -> None:
    code = """import io.modelcontextprotocol.spec.McpSchema;
class A { Object t = new McpSchema.Tool("n", "d", "{}",
    new McpSchema.ToolAnnotations(null, Boolean.TRUE, null, flag, false, true)); }"""
    (tool,) = _tools(JavaDetector(deps.Dependencies()), "A.java", code)
    hints = tool.annotations
    assert (hints.read_only_hint, hints.destructive_hint, hints.idempotent_hint, hints.open_world_hint) == (
        "true", "unset", "dynamic", "false")
    assert hints.title_state == "unset"


def test_kotlin_registration_without_sdk_import_is_not_mcp() -> None:
    code = 'import ai.koog.Tools\nfun f(s: S) { s.addTool(name = "x", description = "d") { } }\n'
    assert _tools(KotlinDetector(deps.Dependencies()), "F.kt", code) == []


def test_kotlin_sdk_overload_is_not_learned_as_a_wrapper() -> None:
    code = """package io.modelcontextprotocol.kotlin.sdk.server
import io.modelcontextprotocol.kotlin.sdk.types.Tool
class Server { fun addTool(name: String, description: String) { addTool(Tool(name = name), h) } }"""
    detector = KotlinDetector(deps.Dependencies())
    _tools(detector, "Server.kt", code)
    assert detector.knowledge.wrappers == {}
