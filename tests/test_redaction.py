"""`export --redact`: Zero's redaction rules (zero/internal/redaction, v0.8.0) re-expressed,
the home folder as `~`, the count each format states at its top, and hostile text."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from zero_tui.cli import main
from zero_tui.commands import ExportRequest, export_many, parse_export_args
from zero_tui.store import SessionStore
from zero_tui.transcript.export import export_session
from zero_tui.transcript.export_html import CSP
from zero_tui.transcript.redaction import REDACTED, Redactor, is_sensitive_key, redact_text

NOW = datetime(2026, 7, 4, 12, 0, 0, tzinfo=UTC)

# --- Zero's own cases --------------------------------------------------------------------------

# TestRedactStringCoversCommonSecretShapes (redaction_test.go)
COMMON_SHAPES = "\n".join(
    [
        '{"apiKey":"sk-proj-abcdefghijklmnopqrstuvwxyz"}',
        "authorization: Bearer ghp_abcdefghijklmnopqrstuvwxyz123456",
        "https://zero:super-secret@example.test/path?token=glpat-abcdefghijklmnopqrstuvwxyz",
        "-----BEGIN PRIVATE KEY-----\nabc123\n-----END PRIVATE KEY-----",
    ]
)


def test_common_secret_shapes() -> None:
    redactor = Redactor(home="")
    got = redactor.text(COMMON_SHAPES)
    for leaked in (
        "sk-proj-abcdefghijklmnopqrstuvwxyz",
        "ghp_abcdefghijklmnopqrstuvwxyz123456",
        "super-secret",
        "glpat-abcdefghijklmnopqrstuvwxyz",
        "abc123",
    ):
        assert leaked not in got
    assert got.count(REDACTED) >= 5
    assert redactor.count.secrets == got.count(REDACTED)


LEAKS = [
    # TestRedactStringRedactsOpaqueAuthorization (opaque_auth_test.go)
    ("Authorization: Bearer sk-secret-123", "sk-secret-123"),
    ("Authorization: sk-opaque-no-scheme-456", "sk-opaque-no-scheme-456"),
    ("authorization: Custom-Scheme deadbeefsecret", "deadbeefsecret"),
    ("Proxy-Authorization: rawproxytoken789", "rawproxytoken789"),
    # TestRedactString_CompoundKeyForms (audit_fixes_test.go)
    ("db_password=hunter2supersecret", "hunter2supersecret"),
    ('{"stripe_secret_key": "rk_live_plaintextvalue"}', "rk_live_plaintextvalue"),
    ("GET /x?session_secret=plainsecretvalue HTTP/1.1", "plainsecretvalue"),
    ("auth_token='opaque-assigned-token-value'", "opaque-assigned-token-value"),
    # TestRedactString_AuthHeaderSchemes
    ("Authorization: Bearer opaquebearervalue1234567", "opaquebearervalue1234567"),
    ("Authorization: token opaquetokenvalue1234567", "opaquetokenvalue1234567"),
    ("Authorization: ApiKey opaqueapikeyvalue1234567", "opaqueapikeyvalue1234567"),
    ("Proxy-Authorization: Digest opaquedigestvalue1234", "opaquedigestvalue1234"),
    # TestRedactString_OpenAIKeyDigitFilterAndVendorPrefixes
    ("approved with sk-test-secret1234567890", "sk-test-secret1234567890"),
    (
        "approved with sk-fw-1SENTINEL_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        "sk-fw-1SENTINEL_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    ),
    (
        "approved with sk-live-1SENTINELaaaaaaaaaa_bbbbbbbbbb-cccc",
        "sk-live-1SENTINELaaaaaaaaaa_bbbbbbbbbb-cccc",
    ),
    ("token=sk-proj-abcdefghijklmnopqrstuvwxyz", "sk-proj-abcdefghijklmnopqrstuvwxyz"),
    ("token=sk-svcacct-abcdefghijklmnopqrstuvwx", "sk-svcacct-abcdefghijklmnopqrstuvwx"),
    ("token=sk-admin-abcdefghijklmnopqrstuvwxyz", "sk-admin-abcdefghijklmnopqrstuvwxyz"),
    # TestRedactString_LooseJWTForms
    ("auth=eyJhbGciOiJIUzI1NiJ9.U0VOVElORUxwYXlsb2Fk.SENTINELsignature123", "eyJhbGci"),
    ("auth=eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0.SENTINELencryptedkey.SENTINELiv", "eyJhbGci"),
    # TestRedactString_CredentialWithAppendedSuffix
    ("token=AKIAIOSFODNN7EXAMPLEEXTRA end", "AKIAIOSFODNN7EXAMPLE"),
    ("token=ghp_1234567890abcdefghijklmnopqrstuvwxyz_suffix end", "ghp_1234567890abcdefghij"),
    # TestScan_RealSecretsStillCaught (secrets/boundary_test.go), which redaction mirrors
    ("export OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwx", "sk-proj-abcdefghijklmnopqrstuvwx"),
    ('token: "sk-abcdefghijklmnopqrstuvwxyz"', "sk-abcdefghijklmnopqrstuvwxyz"),
    ("github_pat_11ABCDEFG0abcdefghijklmnopqrst", "github_pat_11ABCDEFG0"),
    ("creds AKIAIOSFODNN7EXAMPLE here", "AKIAIOSFODNN7EXAMPLE"),
    # the issue's `api_key=` forms and Zero's RedactError case
    ("request failed with api_key=sk-test-secret1234567890", "sk-test-secret1234567890"),
    ("curl -H 'X-Api-Key: live-value-123' https://x", "live-value-123"),
    ("Set-Cookie: session=abcdef0123; Path=/", "abcdef0123"),
    ("--api-key=plainvalue0 next", "plainvalue0"),
]


@pytest.mark.parametrize(("text", "secret"), LEAKS)
def test_zeros_cases_leak_nothing(text: str, secret: str) -> None:
    out = redact_text(text)
    assert secret not in out
    assert REDACTED in out


EXACT = [
    # TestRedactString_TrailingHyphenWithoutTailLeak
    ("secret is xoxb-1234567890-abcdefghi- end", f"secret is {REDACTED} end"),
    ("secret is AIzaSyA1234567890abcdefghijklmnopqrstu- end", f"secret is {REDACTED} end"),
    ("secret is sk-proj-abcDEF123_ghiJKL456-mnoPQR789st- end", f"secret is {REDACTED} end"),
    (
        "secret is eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fw- end",
        f"secret is {REDACTED} end",
    ),
    # TestRedactString_CredentialWithAppendedSuffix: the suffix outside the body stays
    ("aws key AKIAIOSFODNN7EXAMPLEEXTRA tail", f"aws key {REDACTED}EXTRA tail"),
    # TestRedactString_PreservesFileLineColons
    (
        "    secret_test.go:12: token sk-proj-abcdefghijklmnopqrstuvwxyz",
        f"    secret_test.go:12: token {REDACTED}",
    ),
    # TestRedactStringRedactsOpaqueAuthorization: a known scheme keeps its name
    ("Authorization: Bearer sk-x", f"Authorization: Bearer {REDACTED}"),
    # TestRedactString_MultiPartAuthSchemes: all after the scheme, to the end of the line
    (
        'Authorization: Digest username="alice", realm="api", nonce="abc123", '
        'response="deadbeefcafef00d", qop=auth\nnext line',
        f"Authorization: Digest {REDACTED}\nnext line",
    ),
    (
        "Authorization: AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20260618/us-east-1/s3/"
        "aws4_request, SignedHeaders=host;x-amz-date, Signature=fe5f80f77d5fa3beca038a248ff0",
        f"Authorization: AWS4-HMAC-SHA256 {REDACTED}",
    ),
    # TestRedactString_CompoundKeyForms: token counts pass through untouched
    ("max_tokens: 4096", "max_tokens: 4096"),
    ("prompt_tokens=128", "prompt_tokens=128"),
    ("token_count: 50", "token_count: 50"),
    # TestRedactString_OpenAIKeyDigitFilterAndVendorPrefixes: a kebab phrase survives
    (
        "testing sk-learn-machine-learning-model in text",
        "testing sk-learn-machine-learning-model in text",
    ),
    # TestScan_NoOverRedactionOnKebabWords (secrets/boundary_test.go)
    (
        "see task-management-and-coordination-plan for the roadmap",
        "see task-management-and-coordination-plan for the roadmap",
    ),
    (
        "we should ask-the-user-about-this-before-proceeding now",
        "we should ask-the-user-about-this-before-proceeding now",
    ),
    (
        "the risk-assessment-and-mitigation-strategy-doc is ready",
        "the risk-assessment-and-mitigation-strategy-doc is ready",
    ),
    # TestRedactDoesNotMangleHelpText (providerio): ordinary words after Bearer stay
    (
        "Incorrect API key provided. Use Bearer authentication with your key.",
        "Incorrect API key provided. Use Bearer authentication with your key.",
    ),
    # TestScanIgnoresOrdinaryText (secrets/scanner_test.go)
    ("commit a1b2c3d4 fixed the build", "commit a1b2c3d4 fixed the build"),
    ("export PATH=/usr/local/bin:$PATH", "export PATH=/usr/local/bin:$PATH"),
    ("", ""),
]


@pytest.mark.parametrize(("text", "expected"), EXACT)
def test_zeros_cases_exactly(text: str, expected: str) -> None:
    assert redact_text(text) == expected


# TestIsSensitiveKey_CompoundAndTokenCounts (audit_fixes_test.go)
SENSITIVE = [
    "db_password",
    "smtp_password",
    "user_password",
    "session_secret",
    "webhook_secret",
    "stripe_secret_key",
    "client-secret",
    "auth_token",
    "csrf_token",
    "vault_token",
    "my_token",
    "xsrf-token",
    "ssh_private_key",
    "rsa_private_key",
    "backup_api_key",
    "my_apikey",
    "service_apikey",
    "db_passphrase",
    "aws_credential",
    "gcp_credentials",
    "apiKey",
    "X-Api-Key",
    "Authorization",
]
NOT_SENSITIVE = [
    "max_tokens",
    "prompt_tokens",
    "completion_tokens",
    "total_tokens",
    "input_tokens",
    "output_tokens",
    "reasoning_tokens",
    "tokens",
    "token_count",
    "token_usage",
    "tokens_used",
    "primary_key",
    "public_key",
    "cache_key",
    "foreign_key",
    "sort_key",
    "idempotency_key",
    "key",
    "key_name",
    "api_version",
    "username",
    "message",
]


@pytest.mark.parametrize("key", SENSITIVE)
def test_sensitive_keys(key: str) -> None:
    assert is_sensitive_key(key)


@pytest.mark.parametrize("key", NOT_SENSITIVE)
def test_keys_that_are_not_secrets(key: str) -> None:
    assert not is_sensitive_key(key)


def test_a_decoded_value_masks_sensitive_keys_whole() -> None:
    # TestRedactValue_CompoundKeys (audit_fixes_test.go)
    redactor = Redactor(home="")
    value = {
        "db_password": "plainpw",
        "max_tokens": 4096,
        "nested": {"session_secret": "innersecretvalue", "list": ["Bearer x", "api_key=abc"]},
    }
    assert redactor.value(value) == {
        "db_password": REDACTED,
        "max_tokens": 4096,
        "nested": {"session_secret": REDACTED, "list": ["Bearer x", f"api_key={REDACTED}"]},
    }
    assert redactor.count.secrets == 3
    assert value["db_password"] == "plainpw"  # the original is left alone


def test_a_value_ten_thousand_levels_deep_is_walked() -> None:
    deep: object = "password=hunter2"
    for _ in range(10_000):
        deep = [deep]
    masked = Redactor(home="").value(deep)
    for _ in range(10_000):
        assert isinstance(masked, list)
        masked = masked[0]
    assert masked == f"password={REDACTED}"


# --- the home folder -------------------------------------------------------------------------


def test_the_home_folder_is_written_as_tilde() -> None:
    redactor = Redactor(home="/home/alice/")
    text = "cd /home/alice/proj; /home/alice. /home/alicex /home/alice\n'/home/alice'"
    assert redactor.text(text) == "cd ~/proj; ~. /home/alicex ~\n'~'"
    assert (redactor.count.home_paths, redactor.count.secrets) == (4, 0)
    assert redactor.count.note() == "4 values masked (0 secrets, 4 home paths as ~)"


def test_no_home_no_tilde() -> None:
    assert Redactor(home="/").text("/etc/x") == "/etc/x"
    assert Redactor(home="").text("/etc/x") == "/etc/x"


# --- hostile text ----------------------------------------------------------------------------


def test_escape_sequences_around_a_secret() -> None:
    text = "\x1b[31mapi_key=sk-test-secret1234567890\x1b[0m \x1b]8;;https://u:pw1@x.test\x07"
    out = redact_text(text)
    assert "sk-test-secret1234567890" not in out
    assert "pw1" not in out


MEGABYTE = 1 << 20


@pytest.mark.parametrize(
    "filler",
    [
        "a." * (MEGABYTE // 2),  # a word start after every dot: the assignment's key
        "eyJ-" * (MEGABYTE // 4),  # a JWT start after every dash, and no dot
        "-----BEGIN PRIVATE KEY-----" * (MEGABYTE // 27),  # no END
        '"\\"' * (MEGABYTE // 3),  # escaped quotes: the JSON pair's key
        "?" * MEGABYTE,  # the query's name
        "x" * MEGABYTE,
    ],
    ids=["dots", "jwt-starts", "key-blocks", "escaped-quotes", "queries", "one-word"],
)
def test_a_huge_hostile_line_is_masked_in_one_pass(filler: str) -> None:
    """Each would make a backtracking scan start again at every position (Go's engine is
    linear; these patterns were made so); the secret after the filler is still found."""
    out = redact_text(filler + " password=hunter2 ghp_" + "a" * 36)
    assert out.endswith(f" password={REDACTED} {REDACTED}")


# --- the exports --------------------------------------------------------------------------------

SECRET = "sk-proj-abcDEF123_ghiJKL456-mnoPQR789stu"
AWS = "AKIAIOSFODNN7EXAMPLE"


@pytest.fixture
def secret_session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[SessionStore, str]:
    monkeypatch.setenv("ZERO_TUI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("HOME", "/home/alice")
    store = SessionStore(tmp_path / "sessions", clock=lambda: NOW)
    store.create("leaky", title=f"deploy with {AWS}", cwd="/home/alice/proj", model_id="m")
    store.append_events(
        "leaky",
        [
            ("message", {"role": "user", "content": f"my key is {SECRET}, use it"}),
            (
                "tool_call",
                {
                    "toolCallId": "c1",
                    "toolName": "bash",
                    "arguments": {"command": "cat /home/alice/.env", "password": "hunter2"},
                },
            ),
            (
                "tool_result",
                {
                    "toolCallId": "c1",
                    "toolName": "bash",
                    "status": "completed",
                    "output": f"OPENAI_API_KEY={SECRET}\nAuthorization: Bearer tok",
                },
            ),
            ("message", {"role": "assistant", "content": f"Found `{SECRET}` in ~/.env."}),
        ],
    )
    workspace = tmp_path / "out"
    workspace.mkdir()
    return store, str(workspace)


@pytest.mark.parametrize("fmt", ["txt", "md", "json", "html"])
def test_a_redacted_export_leaks_nothing_and_says_so_at_its_top(
    secret_session: tuple[SessionStore, str], fmt: str
) -> None:
    store, workspace = secret_session
    plain = export_session(store, "leaky", fmt=fmt, path=f"p.{fmt}", workspace=workspace, now=NOW)
    assert plain.redacted is None
    assert SECRET in Path(plain.path).read_text()

    result = export_session(
        store, "leaky", fmt=fmt, path=f"r.{fmt}", workspace=workspace, now=NOW, redact=True
    )
    text = Path(result.path).read_text()
    for leaked in (SECRET, AWS, "hunter2", "/home/alice"):
        assert leaked not in text
    assert result.redacted is not None
    note = result.redacted.note()
    assert result.redacted.secrets >= 2
    head = text[:2000]
    if fmt == "txt":
        assert text.startswith(f"· redacted: {note}\n\n")
    elif fmt == "md":
        assert head.startswith("# deploy with \\[REDACTED\\]\n\n> **Redacted:** ")
        assert note.replace("~", "\\~") in head
    elif fmt == "html":
        banner = f"<strong>Redacted:</strong> {note}</div>"
        assert text.index("</header>") < text.index(banner) < text.index("<section")
    else:
        document = json.loads(text)
        assert list(document) == ["redaction", "events"]
        tally = result.redacted
        assert document["redaction"] == {
            "masked": tally.total,
            "secrets": tally.secrets,
            "homePaths": tally.home_paths,
        }
        assert next(event["type"] for event in document["events"]) == "message"
        assert text.index('"redaction"') < text.index('"events"')


def test_the_html_export_keeps_its_strict_csp(secret_session: tuple[SessionStore, str]) -> None:
    store, workspace = secret_session
    for redact in (False, True):
        result = export_session(
            store,
            "leaky",
            fmt="html",
            path=f"{redact}.html",
            workspace=workspace,
            now=NOW,
            redact=redact,
        )
        page = Path(result.path).read_text()
        tags = re.findall(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', page)
        assert tags == [CSP]
        assert "default-src 'none'" in CSP
        assert "script-src" not in CSP
        assert re.search(r"<(script|link|img|iframe)\b", page) is None


def test_cli_export_redact(
    secret_session: tuple[SessionStore, str], capsys: pytest.CaptureFixture[str]
) -> None:
    store, workspace = secret_session
    base = ["--store", str(store.root), "--cwd", workspace]
    assert main(["export", "leaky", "-o", "t.md", "--redact", *base]) == 0
    captured = capsys.readouterr()
    assert captured.out == f"wrote transcript to {workspace}/t.md\n"
    assert re.fullmatch(
        r"zero-tui: redacted: \d+ values masked \(\d+ secrets, \d+ home paths? as ~\)\n",
        captured.err,
    )
    assert SECRET not in Path(workspace, "t.md").read_text()

    assert main(["export", "leaky", "-o", "-", "--redact", "--format", "json", *base]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["redaction"]["secrets"] >= 2


def test_a_bulk_export_of_marked_sessions_is_redacted_when_asked(
    secret_session: tuple[SessionStore, str],
) -> None:
    store, workspace = secret_session
    request = ExportRequest("shared", "md", redact=True)
    outcome = export_many(store, ["leaky"], request, workspace=workspace, now=NOW)
    assert outcome.ok
    text = Path(workspace, "shared", "leaky.md").read_text()
    assert SECRET not in text
    assert "> **Redacted:** " in text


def test_slash_export_takes_redact_anywhere() -> None:
    assert parse_export_args("--redact").redact
    request = parse_export_args("out.md --redact --format md")
    assert (request.path, request.fmt, request.redact) == ("out.md", "md", True)
    assert not parse_export_args("out.md").redact
