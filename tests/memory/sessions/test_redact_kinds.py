"""Every kind of secret the docs list is replaced whole, whatever its characters, and ordinary text
and commands are left alone: generated secrets of each kind in generated surroundings, the exact
output compared; redacting twice gives what redacting once gave."""

from __future__ import annotations

import string

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from brain.memory.sessions.redact import KINDS, Redactor

ALNUM = string.ascii_letters + string.digits
# characters a password may hold inside quotes (no quote of its kind, backslash or line break)
PUNCTUATION = "!#$%&()*+,-./:;<=>?@[]^_{|}~ "


def _word(alphabet: str, low: int, high: int) -> st.SearchStrategy[str]:
    return st.text(alphabet, min_size=low, max_size=high)


def _password(alphabet: str, low: int = 3, high: int = 30) -> st.SearchStrategy[str]:
    """A password of `alphabet` with a letter and a digit in it, so it reads as no placeholder."""
    return st.builds(lambda head, rest: "a1" + head + rest, _word(alphabet, 0, 4), _word(alphabet, low, high))


QUOTABLE = ALNUM + PUNCTUATION.replace("\\", "")
WORDS = st.sampled_from(
    "the deploy failed because the token expired so we rotated it and ran the tests again "
    "password policy says secret rotation happens every month key value store".split()
)
PROSE = st.lists(WORDS, min_size=0, max_size=6).map(" ".join)

# kind -> (a strategy of secrets, how a text holds one): the text's `{}` is where the secret goes
CASES: dict[str, tuple[st.SearchStrategy[str], list[str]]] = {
    "private-key": (
        st.builds(
            lambda label, body: (
                f"-----BEGIN {label}PRIVATE KEY{' BLOCK' if label == 'PGP ' else ''}-----\n{body}\n"
                f"-----END {label}PRIVATE KEY{' BLOCK' if label == 'PGP ' else ''}-----"
            ),
            st.sampled_from(["", "RSA ", "EC ", "OPENSSH ", "ENCRYPTED ", "PGP "]),
            st.lists(_word(ALNUM + "+/=", 1, 64), min_size=1, max_size=5).map("\n".join),
        ),
        ["{}", "key:\n{}\ndone"],
    ),
    "anthropic-key": (_word(ALNUM + "_-", 20, 60).map(lambda s: "sk-ant-api03-" + s), ["use {} here"]),
    "openai-key": (_word(ALNUM, 20, 60).map(lambda s: "sk-proj-" + s), ["key {} here"]),
    "aws-access-key": (_word(string.ascii_uppercase + string.digits, 16, 16).map(lambda s: "AKIA" + s), ["id {} ok"]),
    "github-token": (_word(ALNUM, 36, 40).map(lambda s: "ghp_" + s), ["token is {}"]),
    "gitlab-token": (_word(ALNUM, 20, 30).map(lambda s: "glpat-" + s), ["{}"]),
    "slack-token": (_word(ALNUM, 10, 30).map(lambda s: "xoxb-" + s), ["{}"]),
    "stripe-key": (_word(ALNUM, 16, 30).map(lambda s: "sk_live_" + s), ["{}"]),
    "google-key": (_word(ALNUM + "_-", 35, 35).map(lambda s: "AIza" + s), ["{}"]),
    "sendgrid-key": (
        st.builds(lambda a, b: f"SG.{a}.{b}", _word(ALNUM + "_-", 22, 22), _word(ALNUM + "_-", 43, 43)),
        ["SENDGRID {} set", "key: {}"],
    ),
    "npm-token": (_word(ALNUM, 36, 36).map(lambda s: "npm_" + s), ["{}", "//registry.npmjs.org/ {}"]),
    "jwt": (
        st.builds(lambda a, b, c: f"eyJ{a}.eyJ{b}.{c}", *[_word(ALNUM + "_-", 8, 40)] * 3),
        ["Cookie {} sent"],
    ),
}
# kind -> (secret values, texts): only the value goes, the rest of the text stays as it was
VALUED: dict[str, tuple[st.SearchStrategy[str], list[str]]] = {
    "bearer": (_password(ALNUM + "._-+/=", 16, 40), ["curl -H 'Authorization: Bearer {}'", "Bearer {}"]),
    "authorization": (
        _password(ALNUM + "+/=", 3, 40),
        [
            "curl -H 'Authorization: Basic {}' x",
            'headers = {{"Authorization": "Basic {}"}}',
            "Proxy-Authorization: basic {}",
        ],
    ),
    "url-password": (
        _password(ALNUM + "!$&'()*+,;=-._~%"),
        ["redis://:{}@cache:6379/0", "postgres://app:{}@db:5432/x", "git clone https://bob:{}@github.com/a/b"],
    ),
    "assignment": (
        _password(QUOTABLE.replace('"', "")),
        ['PASSWORD="{}"', 'DB_PASSWORD: "{}"', '{{"client_secret": "{}"}}'],
    ),
    "option-secret": (
        _password(ALNUM + "!#$%*+,-./:=?@^_~"),
        [
            "mysql --password {} db",
            "mysql --password={} db",
            "az storage blob list --account-key {} --account-name x",
            "tool --api-key={} --verbose",
            "gh api --token {}",
        ],
    ),
    "mysql-password": (
        _password(ALNUM + "!#$%*+,-./:=?@^_~"),
        ["mysql -u root -p{} mydb", "mysqldump -h db -u app -p{} shop", "mariadb -p{}"],
    ),
    "curl-user": (
        _password(ALNUM + "!#$%*+,-./=?@^_~"),
        ["curl -u bob:{} https://api.example.com", "curl -s --user bob:{} https://x", "curl -ubob:{} x"],
    ),
    "aws-secret": (
        _password(ALNUM + "+/="),
        ["aws configure set aws_secret_access_key {}", "aws configure set default.aws_session_token {}"],
    ),
}
QUOTED = {  # a quoted value goes whole: spaces, `&` and every other character up to the closing quote
    "assignment": [
        ('PASSWORD="{}"', QUOTABLE.replace('"', "")),
        ("password='{}'", QUOTABLE.replace("'", "")),
    ],
    "option-secret": [('--password "{}"', QUOTABLE.replace('"', "")), ("--password='{}'", QUOTABLE.replace("'", ""))],
    "mysql-password": [("mysql -p'{}' db", QUOTABLE.replace("'", ""))],
}


def test_every_kind_the_docs_list_is_tested():
    assert {kind.name for kind in KINDS} == set(CASES) | set(VALUED)


@settings(max_examples=40, deadline=None)
@given(data=st.data(), kind=st.sampled_from(sorted(CASES)), before=PROSE, after=PROSE)
def test_a_generated_secret_of_each_kind_is_replaced_whole(data, kind, before, after):
    secrets, shapes = CASES[kind]
    secret, shape = data.draw(secrets), data.draw(st.sampled_from(shapes))
    text = f"{before} {shape.format(secret)} {after}"
    redactor = Redactor()
    assert redactor.text(text) == f"{before} {shape.format(f'[REDACTED:{kind}]')} {after}"
    assert redactor.kinds == {kind: 1}


@settings(max_examples=60, deadline=None)
@given(data=st.data(), kind=st.sampled_from(sorted(VALUED)), before=PROSE, after=PROSE)
def test_a_generated_value_of_each_kind_is_replaced_and_its_name_kept(data, kind, before, after):
    values, shapes = VALUED[kind]
    value, shape = data.draw(values), data.draw(st.sampled_from(shapes))
    text = f"{before} {shape.format(value)} {after}"
    redactor = Redactor()
    out = redactor.text(text)
    assert out == f"{before} {shape.format(f'[REDACTED:{kind}]')} {after}"
    assert redactor.text(out) == out  # a marker is never matched again


@settings(max_examples=60, deadline=None)
@given(data=st.data(), kind=st.sampled_from(sorted(QUOTED)))
def test_a_quoted_value_goes_whole(data, kind):
    shape, alphabet = data.draw(st.sampled_from(QUOTED[kind]))
    value = data.draw(_password(alphabet, 1, 40))
    assume(value.strip() == value)
    assert Redactor().text(shape.format(value)) == shape.format(f"[REDACTED:{kind}]")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBGR0\n=abcd\n-----END PGP PRIVATE KEY BLOCK-----\nafter",
            "[REDACTED:private-key]\nafter",
        ),
        ("redis://:PASS@host", "redis://:[REDACTED:url-password]@host"),
        ('PASSWORD="correct horse battery staple"', 'PASSWORD="[REDACTED:assignment]"'),
        ("password='Tr0ub4d&r3xyz'", "password='[REDACTED:assignment]'"),
        (
            "aws configure set aws_secret_access_key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "aws configure set aws_secret_access_key [REDACTED:aws-secret]",
        ),
        ("psql --password s3cr3t", "psql --password [REDACTED:option-secret]"),
        ("psql --password=s3cr3t", "psql --password=[REDACTED:option-secret]"),
        ("mysql -u root -ps3cr3t", "mysql -u root -p[REDACTED:mysql-password]"),
        ("curl -u user:pass https://x", "curl -u user:[REDACTED:curl-user] https://x"),
        ("Authorization: Basic dXNlcjpwYXNz", "Authorization: Basic [REDACTED:authorization]"),
        ("Authorization: Bearer abc123", "Authorization: Bearer [REDACTED:authorization]"),
        ("--account-key Eby8vdM02xNO==", "--account-key [REDACTED:option-secret]"),
        ("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", "[REDACTED:sendgrid-key]"),
        ("npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "[REDACTED:npm-token]"),
    ],
)
def test_the_kinds_issue_33_names(text, expected):
    assert Redactor().text(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("SECRET_KEY=django-insecure-4f8a9c", "SECRET_KEY=[REDACTED:assignment]"),
        ("SECRET_KEY_BASE: 9f8e7d6c5b4a39281706", "SECRET_KEY_BASE: [REDACTED:assignment]"),
        ("export JWT_SECRET_KEY='my jwt secret'", "export JWT_SECRET_KEY='[REDACTED:assignment]'"),
        ("DB_PASSWORD_PROD=Tr0ub4dor", "DB_PASSWORD_PROD=[REDACTED:assignment]"),
        ('{"secretKey": "abc123xyz"}', '{"secretKey": "[REDACTED:assignment]"}'),
        ("apiKeyValue = 'k-12345678'", "apiKeyValue = '[REDACTED:assignment]'"),
        ("GITHUB_TOKEN_RW=tok_abcdef", "GITHUB_TOKEN_RW=[REDACTED:assignment]"),
        ("client_secret.v2: hunter22", "client_secret.v2: [REDACTED:assignment]"),
    ],
)
def test_a_secret_word_anywhere_in_a_name_is_an_assignment(text, expected):
    """Issue 40, 5: only names that *ended* in a secret word were assignments."""
    assert Redactor().text(text) == expected


ORDINARY = [
    "docker run -p 8080:80 nginx",
    "ls -pa",
    "mysql -u root -p",
    "mysql -u root -p mydb",
    "ssh -p 2222 deploy@host",
    "ps -p 1234 -o pid",
    "git commit -m 'rotate the token'",
    "curl -X POST https://api.example.com/v1/items",
    "curl -u $USER:$PASS https://x",
    "docker run -u 1000:1000 image",
    "https://example.com:8443/path?q=1",
    "redis://localhost:6379/0",
    "ssh://git@github.com:22/org/repo.git",
    "git@github.com:org/repo.git",
    "set --password to read it from a file",
    "pass --token when calling the API",
    "docker login --password-stdin",
    "the --password flag",
    "Nothing to hide: ls -pa, mysql -p.",
    "max_tokens: 4096",
    "input_tokens: 1200",
    "password=<your password>",
    "token=${GITHUB_TOKEN}",
    "--token $TOKEN",
    'PASSWORD="${DB_PASSWORD}"',
    "aws configure set region eu-west-1",
    "aws s3 ls s3://bucket",
    "Authorization header missing",
    "npm install --save-dev typescript",
    "the SG. prefix marks a SendGrid key",
    "-----BEGIN PUBLIC KEY-----",
    "export TOKEN=[REDACTED:assignment]",
    # a secret word inside a name that is not about a secret value (the name's last part says what it is)
    "password_file: /run/secrets/db",
    "SECRET_KEY_PATH=/etc/app/key.pem",
    "token_type: refresh",
    '"tokenType": "mac"',
    "password_policy: strict",
    "secret_name: prod-db",
    "api_key_id = main",
    "TOKEN_URL=https://auth.example.com/token",
    "token_count: 42",
    "tokenizer: bert-base",
    "secretary: Jane",
    "TOKENIZER_NAME=gpt2",
    "passwords: many",
    "a line that ends in a token\nTOKENIZER_NAME=gpt2-large-v2",  # `Token X` and `Bearer X` stay on one line
]


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_commands_and_text_are_left_alone(text):
    redactor = Redactor()
    assert redactor.text(text) == text and redactor.count == 0


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(ORDINARY) | PROSE, min_size=1, max_size=8))
def test_ordinary_text_in_any_order_is_left_alone(parts):
    text = "\n".join(parts)
    assert Redactor().text(text) == text


@settings(max_examples=100, deadline=None)
@given(st.text(min_size=0, max_size=200))
def test_redacting_twice_gives_what_redacting_once_gave(text):
    once = Redactor().text(text)
    assert Redactor().text(once) == once


def test_a_token_option_is_an_option_secret_not_a_bearer_token():
    # found by hypothesis: "token <value>" after "--" is the option's value, named as such
    redactor = Redactor()
    assert redactor.text("gh api --token a100000000000000") == "gh api --token [REDACTED:option-secret]"
    assert redactor.kinds == {"option-secret": 1}
