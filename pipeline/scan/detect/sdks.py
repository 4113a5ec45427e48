"""Every library the detector attributes tools to: MCP SDKs and the look-alikes it excludes.

A registration is attributed by the file's imports (and, where imports are ambiguous, the
package manifest), never by a receiver's variable name. ``wire`` says what each SDK sends
for a tool beyond what the source declares (sdk-idioms.md section 2.6); the store turns it
into the ``tool_hints_on_wire`` view.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Sdk:
    """A library that registers tools."""

    key: str
    """the value of ``tools.sdk``."""
    language: str
    """``python``, ``typescript`` (JavaScript too), ``go``, ``rust``, ``java``, ``kotlin``,
    ``csharp``, ``php``, ``ruby`` or ``swift``."""
    is_mcp: bool
    """False for agent frameworks and plugins whose tools are not MCP tools."""
    packages: tuple[str, ...]
    """import prefixes and package-manifest names that identify it (``Dependencies.find``
    matches a manifest name exactly or as a ``name/`` prefix)."""
    wire: str = "as-declared"
    """what reaches a client: ``as-declared``; ``defaults-always`` (all four hints, spec
    defaults for unset ones, even with no annotations); ``defaults-if-declared`` (the same,
    once an annotations object exists); ``go-official`` (readOnly and idempotent sent as
    false once an annotations object exists); ``mcp-go`` (from v0.27 ``NewTool`` pre-fills all four
    with spec defaults; ``WithToolAnnotation`` replaces that struct, and ``NewToolWithRawSchema``
    and ``mcp.Tool{}`` literals fill nothing)."""


_ALL = (
    # Python
    Sdk("python-mcp", "python", True, ("mcp.server", "mcp")),
    Sdk("python-fastmcp", "python", True, ("fastmcp",)),
    Sdk("python-azure-functions", "python", True, ("azure.functions", "azure-functions")),
    Sdk("python-claude-agent-sdk", "python", True, ("claude_agent_sdk", "claude-agent-sdk")),
    Sdk("langchain", "python", False, ("langchain", "langchain_core", "langchain-core")),
    Sdk("crewai", "python", False, ("crewai",)),
    Sdk("openai-agents", "python", False, ("agents", "openai-agents")),
    Sdk("pydantic-ai", "python", False, ("pydantic_ai", "pydantic-ai")),
    Sdk("strands", "python", False, ("strands", "strands-agents")),
    Sdk("agno", "python", False, ("agno",)),
    Sdk("smolagents", "python", False, ("smolagents",)),
    # TypeScript / JavaScript
    Sdk("ts-mcp", "typescript", True, ("@modelcontextprotocol/sdk", "@modelcontextprotocol/server")),
    Sdk("ts-fastmcp", "typescript", True, ("fastmcp", "litemcp")),  # litemcp: fastmcp's forerunner
    Sdk("ts-mastra", "typescript", True, ("@mastra/mcp",)),
    Sdk("ts-tmcp", "typescript", True, ("tmcp",)),  # paoloricciuti/tmcp: server.tool({ name, ... }, fn)
    Sdk("ts-mcp-framework", "typescript", True, ("mcp-framework",)),
    Sdk("ts-azure-functions", "typescript", True, ("@azure/functions",)),
    Sdk("openclaw", "typescript", False, ("openclaw", "openclaw/plugin-sdk")),
    Sdk("vercel-ai", "typescript", False, ("ai",)),
    Sdk("mastra-agent", "typescript", False, ("@mastra/core",)),
    # Go
    Sdk("go-official", "go", True, ("github.com/modelcontextprotocol/go-sdk",), wire="go-official"),
    Sdk("go-mcp-go", "go", True, ("github.com/mark3labs/mcp-go",), wire="mcp-go"),
    Sdk("go-mcp-golang", "go", True, ("github.com/metoro-io/mcp-golang",)),
    Sdk("go-foxy-contexts", "go", True, ("github.com/strowk/foxy-contexts",)),
    # acrmp/mcp: []mcp.ToolDefinition{{Metadata: mcp.Tool{Name: ..}}} handed to mcp.NewServer
    Sdk("go-acrmp", "go", True, ("github.com/acrmp/mcp",)),
    # Rust
    Sdk("rust-rmcp", "rust", True, ("rmcp",)),
    Sdk("rust-mcp-sdk", "rust", True, ("rust-mcp-sdk", "rust_mcp_sdk", "rust_mcp_macros")),
    Sdk("rust-pmcp", "rust", True, ("pmcp",)),
    # mcp-core's #[tool] macro writes all four hints with spec defaults, title = fn name
    Sdk("rust-mcp-core", "rust", True, ("mcp-core", "mcp_core"), wire="defaults-always"),
    # the early mcp-spec / mcp-server 0.1 crates: Tool::new(name, description, schema) values a
    # hand-written Router's list_tools returns
    Sdk("rust-mcp-spec", "rust", True, ("mcp-spec", "mcp_spec")),
    # JVM
    Sdk("java-mcp", "java", True, ("io.modelcontextprotocol", "io.modelcontextprotocol.sdk:mcp",
                                   "io.modelcontextprotocol.sdk:mcp-core")),
    Sdk("java-spring-ai", "java", True, ("org.springaicommunity.mcp", "org.springframework.ai.mcp.annotation"),
        wire="defaults-always"),
    # Quarkus: annotation members are primitive booleans, sent only once @Tool.Annotations is written
    Sdk("java-quarkus", "java", True, ("io.quarkiverse.mcp",), wire="defaults-if-declared"),
    Sdk("spring-ai-tool", "java", False, ("org.springframework.ai.tool",)),
    # Spring AI @Tool in a module that declares an MCP server starter: exposed as an MCP tool, no hints
    Sdk("java-spring-ai-tool-mcp", "java", True, tuple(
        f"org.springframework.ai:spring-ai-{a}" for a in (
            "starter-mcp-server", "starter-mcp-server-webmvc", "starter-mcp-server-webflux",
            "mcp-server-spring-boot-starter", "mcp-server-webmvc-spring-boot-starter",
            "mcp-server-webflux-spring-boot-starter"))),
    # codeboyzhou mcp-declarative-java-sdk (now thought2code mcp-annotated-java-sdk): @McpTool, no hint fields
    Sdk("java-declarative", "java", True, (
        "com.github.codeboyzhou.mcp.declarative", "com.github.thought2code.mcp.annotated",
        "io.github.codeboyzhou:mcp-declarative-java-sdk", "io.github.thought2code:mcp-annotated-java-sdk")),
    Sdk("langchain4j", "java", False, ("dev.langchain4j",)),
    Sdk(
        "kotlin-mcp",
        "kotlin",
        True,
        ("io.modelcontextprotocol.kotlin", "io.modelcontextprotocol:kotlin-sdk",
         "io.modelcontextprotocol:kotlin-sdk-server", "io.modelcontextprotocol:kotlin-sdk-core",
         "io.modelcontextprotocol:kotlin-sdk-jvm", "io.modelcontextprotocol:kotlin-sdk-server-jvm"),
        wire="kotlin",
    ),
    # .NET, PHP, Ruby, Swift
    Sdk("csharp-azure-functions", "csharp", True, ("Microsoft.Azure.Functions.Worker.Extensions.Mcp",)),
    Sdk("csharp-mcp", "csharp", True, ("ModelContextProtocol", "ModelContextProtocol.AspNetCore",
                                       "ModelContextProtocol.Core")),
    Sdk("php-mcp-sdk", "php", True, ("Mcp\\", "mcp/sdk")),
    Sdk("php-php-mcp", "php", True, ("PhpMcp\\", "php-mcp/server")),
    Sdk("php-laravel", "php", True, ("Laravel\\Mcp\\", "laravel/mcp")),
    Sdk("ruby-mcp", "ruby", True, ("mcp",), wire="defaults-if-declared"),
    Sdk("ruby-fast-mcp", "ruby", True, ("fast-mcp", "fast_mcp")),
    Sdk("swift-mcp", "swift", True, ("MCP", "modelcontextprotocol/swift-sdk")),
    Sdk("swift-swiftmcp", "swift", True, ("SwiftMCP",)),
    # no SDK: the protocol's Tool objects written by hand, in any language (``literals``)
    Sdk("protocol", "any", True, ()),
)

#: every known library by key
SDKS: dict[str, Sdk] = {sdk.key: sdk for sdk in _ALL}


def sdk(key: str) -> Sdk:
    """The library registered under ``key``; a ``KeyError`` names an unknown one."""
    return SDKS[key]
