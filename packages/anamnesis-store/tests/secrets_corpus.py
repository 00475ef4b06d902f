"""A labelled corpus for the redactor: secrets in the forms people paste, and look-alikes.

Every secret value is generated here from a fixed seed, in the format of the real thing
(prefix, alphabet, length) but random: none is a real credential, and the repository holds
no credential-shaped literal that a push-protection scanner would stop. Each positive names
the substrings that must disappear; everything else in its text must survive as it was.
Each negative must come out unchanged.
"""

from __future__ import annotations

import base64
import random
import string
from typing import NamedTuple

_RNG = random.Random(20240917)
LOWER = string.ascii_lowercase
UPPER = string.ascii_uppercase
DIGITS = string.digits
ALNUM = LOWER + UPPER + DIGITS
HEX = DIGITS + "abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"
CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def rand(alphabet: str, n: int) -> str:
    """``n`` characters of ``alphabet``; from a mixed alphabet, with each class in it."""
    while True:
        value = "".join(_RNG.choice(alphabet) for _ in range(n))
        wanted = [cls for cls in (LOWER, UPPER, DIGITS) if set(cls) & set(alphabet)]
        if n < 8 or all(set(value) & set(cls) for cls in wanted):
            return value


def b64_bytes(n: int) -> str:
    return base64.b64encode(_RNG.randbytes(n)).decode()


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _jwt() -> str:
    """A well-formed HS256 JWT (header and claims decode) with a random signature."""
    claims = f'{{"sub":"{rand(DIGITS, 10)}","name":"ci-bot","iat":{rand(DIGITS, 10)}}}'
    header = _b64url(b'{"alg":"HS256","typ":"JWT"}')
    return f"{header}.{_b64url(claims.encode())}.{_b64url(_RNG.randbytes(32))}"


def password() -> str:
    return rand(LOWER, 4) + rand(DIGITS, 2) + rand(UPPER, 2) + rand(ALNUM, 4)


def raw_password(special: str) -> str:
    """A password with a character a URL would need encoded, typed as it is."""
    word = password()
    return word[:5] + special + word[5:]


def _pem_lines(body: str, width: int = 64) -> str:
    return "\n".join(body[i : i + width] for i in range(0, len(body), width))


def _der_key(header: bytes, size: int) -> str:
    """Base64 of ``size`` bytes of DER that open as a private key does (``header``: the
    SEQUENCE, its length, the version and the next tag), the rest random."""
    return base64.b64encode(header + _RNG.randbytes(size - len(header))).decode()


def rsa_key_body() -> str:  # PKCS#1: SEQUENCE (1190 bytes), version 0, INTEGER (n)
    return _der_key(bytes.fromhex("308204a202010002820101"), 1190)


def pkcs8_key_body() -> str:  # SEQUENCE (1216 bytes), version 0, AlgorithmIdentifier
    return _der_key(bytes.fromhex("308204bc020100300d06092a864886f70d0101010500"), 1216)


def ec_key_body() -> str:  # SEC1: SEQUENCE (121 bytes), version 1, OCTET STRING (d)
    return _der_key(bytes.fromhex("307702010104"), 121)


def openssh_key_body() -> str:
    raw = b"openssh-key-v1\x00" + b"\x00\x00\x00\x04none" * 2 + _RNG.randbytes(320)
    return base64.b64encode(raw).decode()


def certificate_body() -> str:  # a certificate: a SEQUENCE inside the SEQUENCE
    return _der_key(bytes.fromhex("308201a23082014aa003020102"), 422)


def public_key_body() -> str:  # SubjectPublicKeyInfo: SEQUENCE, SEQUENCE (the algorithm)
    return _der_key(bytes.fromhex("30820122300d06092a864886f70d0101010500"), 294)


class Positive(NamedTuple):
    kind: str
    text: str
    secrets: tuple[str, ...]
    expected: str | None = None  # None: the text with each secret replaced by the mask


class Negative(NamedTuple):
    kind: str
    text: str


def _p(kind: str, template: str, *secrets: str, expected: str | None = None) -> Positive:
    """``template`` with ``{0}``, ``{1}``... standing for the secrets."""
    return Positive(kind, template.format(*secrets), secrets, expected)


_AKIA = "AKIA" + rand(UPPER + "234567", 16)
_ASIA = "ASIA" + rand(UPPER + "234567", 16)
_AWS_SECRETS = [rand(B64, 40) for _ in range(6)]
_AZURE_KEY = b64_bytes(64)  # 88 characters ending in "=="
_SAS_SIG = b64_bytes(32).replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")


POSITIVES: list[Positive] = [
    # The forms the issue names.
    _p("pgpassword", "PGPASSWORD={0} psql -h db.internal -U app", password()),
    _p("pgpassword", "export PGPASSWORD='{0}'", password()),
    _p("pgpassword", '$env:PGPASSWORD = "{0}"', password()),
    _p("db-pass", "DB_PASS={0}", password()),
    _p("db-pass", '  DB_PASS: "{0}"', rand(LOWER, 9)),
    _p("db-password", "DB_PASSWORD={0}\nDB_HOST=localhost", password()),
    _p("mysql-pwd", "MYSQL_PWD={0} mysql -u root app", password()),
    _p("smtp-pass", "smtp_host: mail.example.com\nsmtp_pass: {0}\n", password()),
    _p("smtp-pass", "smtp_pass: mailpass42", "mailpass42"),
    _p(
        "azure-account-key",
        "DefaultEndpointsProtocol=https;AccountName=acmestore;AccountKey={0};"
        "EndpointSuffix=core.windows.net",
        _AZURE_KEY,
    ),
    _p("azure-account-key", 'storage_conn = "AccountName=x;AccountKey={0}"', _AZURE_KEY),
    _p(
        "azure-sas",
        "https://acme.blob.core.windows.net/backups/db.tar?sv=2022-11-02&ss=b&srt=o&sp=r"
        "&se=2030-01-01T00:00:00Z&spr=https&sig={0}",
        _SAS_SIG,
    ),
    _p(
        "azure-sas",
        "BlobEndpoint=https://acme.blob.core.windows.net/;SharedAccessSignature=sv=2022-11-02"
        "&ss=b&srt=sco&sp=rl&sig={0}",
        _SAS_SIG,
    ),
    _p(
        "azure-service-bus",
        "Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey={0}",
        b64_bytes(32),
    ),
    _p(
        "azure-client-secret",
        "client secret from the portal: {0}",
        "8Zx" + "4Q~" + rand(URLSAFE, 34),
    ),
    _p("sendgrid", "{0} was pasted in chat", "SG." + rand(URLSAFE, 22) + "." + rand(URLSAFE, 43)),
    _p("sendgrid", "SENDGRID_API_KEY={0}", "SG." + rand(URLSAFE, 22) + "." + rand(URLSAFE, 43)),
    _p("aws-bare-secret", "{0} {1}", _AKIA, _AWS_SECRETS[0]),
    _p(
        "aws-bare-secret",
        "User name,Password,Access key ID,Secret access key\nci-bot,,{0},{1}",
        _AKIA,
        _AWS_SECRETS[1],
    ),
    _p(
        "aws-bare-secret",
        "the aws secret for the ci user is {0}, rotate it monthly",
        _AWS_SECRETS[2],
    ),
    _p("aws-bare-secret", "aws configure set aws_secret_access_key {0}", _AWS_SECRETS[3]),
    _p("aws-keyword", "aws_secret_access_key = {0}", _AWS_SECRETS[4]),
    _p(
        "aws-keyword",
        'boto3.client("s3", aws_access_key_id="{0}", aws_secret_access_key="{1}")',
        _ASIA,
        _AWS_SECRETS[5],
    ),
    _p("aws-keyword", "AWS_SESSION_TOKEN={0}", "IQoJb3JpZ2luX2Vj" + rand(B64, 120)),
    # Keyword assignments in every syntax.
    _p("yaml", "database:\n  user: app\n  password: {0}\n", password()),
    _p("json", '{{"user": "app", "password": "{0}"}}', password()),
    _p("toml", '[db]\npassword = "{0}"', password()),
    _p("ini", "[client]\nuser = root\npasswd = {0}", password()),
    _p("shell", "export API_SECRET={0}", rand(ALNUM, 32)),
    _p("yaml", "client_secret: {0}", rand(URLSAFE, 40)),
    _p("json", '"privateKey": "{0}"', "0x" + rand(HEX, 64)),
    _p("env", "OPENAI_API_KEY={0}", rand(ALNUM, 32)),
    _p("yaml", "apikey: {0}", rand(ALNUM, 24)),
    _p("header", "X-Api-Key: {0}", rand(ALNUM, 32)),
    _p("yaml", "access_key: {0}", rand(ALNUM, 20)),
    _p("env", "AUTH={0}", rand(ALNUM, 24)),
    _p("yaml", 'auth: "{0}"', rand(ALNUM, 32)),
    _p("json", '{{"credentials": "{0}"}}', rand(ALNUM, 28)),
    _p("yaml", "token: {0}", rand(ALNUM, 40)),
    _p("ruby", 'secret_key_base = "{0}"', rand(HEX, 128)),
    _p("env", "JWT_SECRET={0}", rand(ALNUM, 48)),
    _p("yaml", "passphrase: {0}", "correct horse battery staple 7".replace(" ", "-")),
    _p("python", 'psycopg.connect(host="db", user="app", password="{0}")', password()),
    _p("env", "KEY={0}", rand(ALNUM, 32)),
    _p("env", "HEROKU_API_KEY={0}", "3bf75f14-4c3f-4a2b-9d1e-" + rand(HEX, 12)),
    _p("npmrc", "//npm.acme.dev/:_authToken={0}", rand(ALNUM, 36)),
    _p(
        "docker-config",
        '{{"auths": {{"ghcr.io": {{"auth": "{0}"}}}}}}',
        base64.b64encode(b"bot:" + password().encode()).decode(),
    ),
    _p("connection-string", "Server=db;Database=app;User Id=sa;Password={0};", password()),
    _p("connection-string", "Driver={{ODBC}};Server=db;Uid=sa;Pwd={0};", password()),
    _p("jdbc", "jdbc:postgresql://db:5432/app?user=app&password={0}", password()),
    _p("k8s", "apiVersion: v1\nkind: Secret\nstringData:\n  password: {0}\n", password()),
    _p("xml", "<server>\n  <id>nexus</id>\n  <password>{0}</password>\n</server>", password()),
    _p("xml", "<passphrase>{0}</passphrase>", password()),
    _p("netrc", "machine api.acme.dev login deploy password {0}", password()),
    _p("netrc", "machine git.acme.dev\n  login bot\n  password {0}\n", rand(HEX, 40)),
    _p("curl", "curl -u admin:{0} https://api.acme.dev/v1/jobs", password()),
    _p("docker-login", "docker login -u bot --password {0} registry.acme.dev", password()),
    _p("flag", "deploy.sh --api-token {0} --env prod", rand(ALNUM, 32)),
    _p("sshpass", "sshpass -p '{0}' ssh root@10.0.0.5", password()),
    _p("auth-header", "Authorization: Token {0}", rand(HEX, 40)),
    _p("url", "mysql://root:{0}@localhost:3306/app", password()),
    _p("url", "DATABASE_URL=postgres://app:{0}@db:5432/app", password()),
    _p("github-actions", "env:\n  NPM_TOKEN: {0}\n", "npm_" + rand(ALNUM, 36)),
    # Token families: bare, in prose.
    _p("twilio", "twilio api key {0} (sid below)", "SK" + rand(HEX, 32)),
    _p("mailgun", "MG: {0}", "key-" + rand(HEX, 32)),
    _p("npm", "the publish token is {0}", "npm_" + rand(ALNUM, 36)),
    _p("pypi", "twine upload -p {0} dist/*", "pypi-AgEIcHlwaS5vcmc" + rand(URLSAFE, 150)),
    _p("google", "maps key {0} in index.html", "AIza" + rand(URLSAFE, 35)),
    _p("google", "GOCSPX secret {0}", "GOCSPX-" + rand(URLSAFE, 28)),
    _p("google", "access token {0}", "ya29." + rand(URLSAFE, 120)),
    _p("gitlab", "clone with {0}", "glpat-" + rand(URLSAFE, 20)),
    _p("gitlab", "deploy token {0}", "gldt-" + rand(URLSAFE, 20)),
    _p("gitlab", "runner token {0}", "glrt-" + rand(URLSAFE, 20)),
    _p("gitlab", "trigger {0}", "glptt-" + rand(HEX, 40)),
    _p("huggingface", "HF: {0}", "hf_" + rand(ALNUM, 34)),
    _p("huggingface", "org token {0}", "api_org_" + rand(ALNUM, 34)),
    _p(
        "discord-bot",
        "bot token {0}",
        "M" + rand(ALNUM, 25) + "." + rand(URLSAFE, 6) + "." + rand(URLSAFE, 38),
    ),
    _p(
        "discord-webhook",
        "https://discord.com/api/webhooks/123456789012345678/{0}",
        rand(URLSAFE, 68),
    ),
    _p(
        "slack-webhook",
        "https://hooks.slack.com/services/{0}",
        "T" + rand(UPPER + DIGITS, 8) + "/B" + rand(UPPER + DIGITS, 10) + "/" + rand(ALNUM, 24),
    ),
    _p(
        "slack",
        "SLACK_BOT_TOKEN={0}",
        "xoxb-" + rand(DIGITS, 12) + "-" + rand(DIGITS, 13) + "-" + rand(ALNUM, 24),
    ),
    _p("telegram", "bot {0} posts alerts", rand(DIGITS, 10) + ":AA" + rand(URLSAFE, 33)),
    _p("heroku", "heroku token {0}", "HRKU-AA" + rand(URLSAFE, 58)),
    _p("digitalocean", "doctl auth init -t {0}", "dop_v1_" + rand(HEX, 64)),
    _p("shopify", "shopify admin token {0}", "shpat_" + rand(HEX, 32)),
    _p("square", "square {0}", "sq0atp-" + rand(URLSAFE, 22)),
    _p("square", "square oauth secret {0}", "sq0csp-" + rand(URLSAFE, 43)),
    _p("square", "square access token {0}", "EAAA" + rand(URLSAFE, 60)),
    _p("atlassian", "jira token {0}", "ATATT3xFfGF0" + rand(URLSAFE, 180)),
    _p("databricks", "DATABRICKS_HOST=x {0}", "dapi" + rand(HEX, 32)),
    _p("mailchimp", "mailchimp {0}", rand(HEX, 32) + "-us14"),
    _p("postman", "postman {0}", "PMAK-" + rand(HEX, 24) + "-" + rand(HEX, 34)),
    _p("doppler", "doppler {0}", "dp.pt." + rand(ALNUM, 43)),
    _p("linear", "linear {0}", "lin_api_" + rand(ALNUM, 40)),
    _p("grafana", "grafana {0}", "glsa_" + rand(ALNUM, 32) + "_" + rand(HEX, 8)),
    _p("grafana", "grafana cloud {0}", "glc_" + rand(B64, 60)),
    _p("sentry", "sentry {0}", "sntryu_" + rand(HEX, 64)),
    _p("vault", "VAULT_TOKEN is {0}", "hvs." + rand(URLSAFE, 90)),
    _p("terraform", "credentials {0}", rand(LOWER + DIGITS, 14) + ".atlasv1." + rand(URLSAFE, 64)),
    _p("age", "age key {0}", "AGE-SECRET-KEY-1" + rand("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)),
    _p("newrelic", "newrelic {0}", "NRAK-" + rand(UPPER + DIGITS, 27)),
    _p("pulumi", "pulumi login {0}", "pul-" + rand(HEX, 40)),
    _p("supabase", "supabase {0}", "sbp_" + rand(HEX, 40)),
    _p("notion", "notion {0}", "ntn_" + rand(DIGITS, 11) + rand(ALNUM, 35)),
    _p("groq", "groq {0}", "gsk_" + rand(ALNUM, 52)),
    _p("openai", "openai {0}", "sk-proj-" + rand(URLSAFE, 58) + "T3BlbkFJ" + rand(URLSAFE, 58)),
    _p("anthropic", "anthropic {0}", "sk-ant-api03-" + rand(URLSAFE, 93) + "AA"),
    _p("github", "gh {0}", "ghp_" + rand(ALNUM, 36)),
    _p("github", "fine-grained {0}", "github_pat_" + rand(ALNUM + "_", 82)),
    _p("stripe", "stripe {0}", "sk_live_" + rand(ALNUM, 24)),
    _p("rubygems", "gem push with {0}", "rubygems_" + rand(HEX, 48)),
    _p("brevo", "brevo {0}", "xkeysib-" + rand(HEX, 64) + "-" + rand(ALNUM, 16)),
    _p("openshift", "oc login --token={0}", "sha256~" + rand(URLSAFE, 43)),
    _p("jwt", "session cookie {0}", _jwt()),
    _p(
        "private-key",
        "{0}",
        "-----BEGIN EC PRIVATE KEY-----\n" + b64_bytes(48) + "\n-----END EC PRIVATE KEY-----",
    ),
    _p(
        "presigned-url",
        "https://acme.s3.amazonaws.com/a.zip?X-Amz-Algorithm=AWS4-HMAC-SHA256"
        "&X-Amz-Credential={0}%2F20240101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Signature={1}",
        _AKIA,
        rand(HEX, 64),
        # The rest of a query after a credential key is masked with it: a value runs to
        # the next space, so a password holding "&" is not cut short.
        expected="https://acme.s3.amazonaws.com/a.zip?X-Amz-Algorithm=AWS4-HMAC-SHA256"
        "&X-Amz-Credential=[REDACTED]",
    ),
]


def _data_uri(mime: str, n: int) -> str:
    return f"data:{mime};base64,{b64_bytes(n)}"


NEGATIVES: list[Negative] = [
    # Identifiers.
    Negative("ulid", "01J9Z8YPM7Q3X2V4WT6B5N0KGD"),
    Negative(
        "ulid", "id: 0" + rand(CROCKFORD, 25) + "\nsupersedes: [0" + rand(CROCKFORD, 25) + "]"
    ),
    Negative("ulid", "memory/semantic/01" + rand(CROCKFORD, 24) + ".md"),
    Negative("uuid", "3bf75f14-4c3f-4a2b-9d1e-7f3c9a1e5b2d"),
    Negative("uuid", "request_id: 9F2C1A7E-5B3D-4E8F-A1C2-D3E4F5A6B7C8"),
    Negative(
        "uuid",
        "session_id="
        + rand(HEX, 8)
        + "-"
        + rand(HEX, 4)
        + "-4"
        + rand(HEX, 3)
        + "-a"
        + rand(HEX, 3)
        + "-"
        + rand(HEX, 12),
    ),
    Negative("git-sha", "commit e83e3333b5770815e9c2e3aee48c305257385bbb fixed it"),
    Negative("git-sha", "git show " + rand(HEX, 40) + ":src/app.py"),
    Negative("git-sha", "Merge: 1a2b3c4 5d6e7f8"),
    Negative("git-sha", "the secret rotation landed in " + rand(HEX, 40) + " on main"),
    Negative("git-sha", "aws provider bumped in " + rand(HEX, 40)),
    Negative("git-sha", "fixup! abc1234 (token refresh)"),
    Negative("sha256", rand(HEX, 64) + "  anamnesis_store-0.2.1-py3-none-any.whl"),
    Negative("sha256", "SHA256: " + rand(HEX, 64)),
    Negative("docker-digest", "ghcr.io/acme/api@sha256:" + rand(HEX, 64)),
    Negative("docker-digest", "Digest: sha256:" + rand(HEX, 64)),
    Negative("pip-hash", "requests==2.32.3 --hash=sha256:" + rand(HEX, 64)),
    Negative("integrity", '"integrity": "sha512-' + b64_bytes(64) + '",'),
    Negative(
        "integrity",
        '"resolved": "https://registry.npmjs.org/x/-/x-1.0.0.tgz",\n"integrity": "sha1-'
        + b64_bytes(20)
        + '"',
    ),
    Negative(
        "integrity",
        '<script src="/app.js" integrity="sha384-'
        + b64_bytes(48)
        + '" crossorigin="anonymous"></script>',
    ),
    Negative("integrity", "integrity sha256-" + b64_bytes(32)),
    Negative("data-uri", '<img src="' + _data_uri("image/png", 1500) + '">'),
    Negative("data-uri", "background: url(" + _data_uri("image/gif", 300) + ");"),
    Negative("data-uri", "![logo](" + _data_uri("image/svg+xml", 600) + ")"),
    Negative("data-uri", '"icon": "' + _data_uri("image/webp", 900) + '"'),
    Negative(
        "base64", "-----BEGIN CERTIFICATE-----\n" + b64_bytes(48) + "\n-----END CERTIFICATE-----"
    ),
    Negative("base64", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + rand(B64, 43) + " me@laptop"),
    # Paths, URLs, versions, colours.
    Negative("path", "/home/me/.ssh/id_ed25519 and ~/.aws/credentials"),
    Negative("path", "credentials: ~/.config/gcloud/application_default_credentials.json"),
    Negative("path", "secret: /run/secrets/db_password"),
    Negative("path", r"C:\Users\me\AppData\Roaming\npm\node_modules"),
    Negative("path", "src/components/SecretPanel/TokenField.tsx:42"),
    Negative("url", "https://github.com/acme/api/blob/main/src/auth/token.py#L10"),
    Negative("url", "https://example.com/search?q=password+reset&page=2"),
    Negative("url", "https://login.acme.dev/oauth/authorize?client_id=web&response_type=code"),
    Negative("url", "git@github.com:acme/api.git"),
    Negative("url", "aws s3 cp s3://acme-backups/2024/db.tar.gz ."),
    Negative("url", "DATABASE_URL=postgres://user:password@localhost:5432/app"),
    Negative("url", "clone with https://USER:TOKEN@git.acme.dev/org/repo.git"),
    Negative("url", "redis://:${REDIS_PASSWORD}@cache:6379/0"),
    Negative("version", "anamnesis-store 0.2.1, Python 3.11.2, sqlite 3.40.1"),
    Negative("version", "version: 1.2.3-rc.1+build.5"),
    Negative("css", "color: #1a2b3c; background: #FFF; border-color: #ff00aa80;"),
    # Prose.
    Negative("prose", "Reset your password in settings."),
    Negative("prose", "The password must be at least 12 characters."),
    Negative("prose", "Forgot password? Click the link in the email."),
    Negative("prose", "We rotate the API key every 90 days; the token expires after 1 hour."),
    Negative("prose", "Token-based auth is simpler than session cookies."),
    Negative("prose", "The secret sauce is caching."),
    Negative("prose", "Use `aws secretsmanager get-secret-value --secret-id prod/db` to read it."),
    Negative("prose", "Enter your password: "),
    Negative("prose", "first pass: we index everything, second pass: we prune"),
    Negative("prose", "the --token flag is deprecated; use --token-file instead"),
    Negative("prose", "auth: see the runbook for how to rotate it"),
    # Code that names a credential without holding one.
    Negative("code", "password = getpass()"),
    Negative("code", 'password = os.environ["PGPASSWORD"]'),
    Negative("code", 'token = request.headers["Authorization"]'),
    Negative("code", "password = self.password"),
    Negative("code", "api_key = settings.API_KEY"),
    Negative("code", "password = db_password"),
    Negative("code", "def login(username: str, password: str) -> Session:"),
    Negative("code", "  password: string;"),
    Negative("code", "const token = await getToken();"),
    Negative("code", "if not password:\n    raise ValueError('password required')"),
    Negative("code", "secret = secrets.token_urlsafe(32)"),
    Negative("code", "auth=(user, password)"),
    Negative("code", "token_count: 12, password_min_length: 12"),
    Negative("code", "password_hash_rounds = 12"),
    Negative("code", "session.auth = HTTPBasicAuth(user, password)"),
    Negative("code", "self.token = nextchar"),
    Negative("code", "with zf.open(member, pwd=pwd) as source:"),
    Negative("code", "self.credentials = credentials"),
    Negative("code", "Token = Ignore + Plain"),
    Negative("code", "password = password_from_vault if use_vault else prompt()"),
    Negative("prose", "- password: The password to authenticate with."),
    # Placeholders.
    Negative("placeholder", "PGPASSWORD=$DB_PASSWORD psql -h db"),
    Negative("placeholder", 'export PGPASSWORD="${PGPASSWORD}"'),
    Negative("placeholder", "DB_PASS=changeme"),
    Negative("placeholder", "password: <password>"),
    Negative("placeholder", 'password: "********"'),
    Negative("placeholder", "api_key: xxx"),
    Negative("placeholder", "token: [REDACTED]"),
    Negative("placeholder", "smtp_pass: ${SMTP_PASS}"),
    Negative("placeholder", "password: password"),
    Negative("placeholder", "password: null"),
    Negative("placeholder", "client_secret: your-client-secret"),
    Negative("placeholder", "MYSQL_PWD=%MYSQL_PWD%"),
    Negative("placeholder", 'password: "$(cat /run/secrets/db)"'),
    Negative("placeholder", "<password>${env.NEXUS_PASSWORD}</password>"),
    Negative("placeholder", "curl -u $USER:$TOKEN https://api.acme.dev"),
    Negative("placeholder", "GITHUB_TOKEN=${{ secrets.GITHUB_TOKEN }}"),
    # Keys whose value is a setting, not a credential.
    Negative("setting", "secret: true"),
    Negative("setting", "auth: true"),
    Negative("setting", "auth: oauth2"),
    Negative("setting", "AUTH=none"),
    Negative("setting", "auth_method: password"),
    Negative("setting", "key: value"),
    Negative("setting", "key: ${{ runner.os }}-pip-${{ hashFiles('**/requirements.txt') }}"),
    Negative("setting", "key: " + rand(HEX, 40)),
    Negative("setting", "test_pass: ok"),
    Negative("setting", "pass_rate: 0.97"),
    Negative("setting", "pass: 3"),
    Negative("setting", "max_tokens=4096"),
    Negative("setting", "token_url: https://auth.acme.dev/oauth/token"),
    Negative("setting", "author: Jane Doe"),
    Negative("setting", '{"method": "notifications/progress", "progressToken": "req-7"}'),
    Negative("setting", "nextPageToken: CiAKGjBpNDd2Nmp2Zml2cXRwYjBp"),
    # Commands that look like credentials on the command line.
    Negative("command", "docker login --password-stdin < pw.txt"),
    Negative("command", "docker run -u 1000:1000 -v $PWD:/src image"),
    Negative("command", "sudo -u postgres psql"),
    Negative("command", "git push -u origin main"),
    Negative("command", "docker buildx build --secret id=npmrc,src=$HOME/.npmrc ."),
    Negative("command", "ssh-keygen -t ed25519 --key id_ed25519.pub"),
    # Near misses of the new bare forms.
    Negative("near-aws", "aws: S3BucketReplicationConfigurationV2Helper"),
    Negative("near-aws", "the secrets client is AwsSecretsManagerClientBuilderFactoryImp"),
    Negative("near-sendgrid", "SG.short.value"),
    Negative("near-twilio", "SKU-" + rand(DIGITS, 8) + " and SKIP_TESTS=1"),
    Negative("near-mailgun", "the key-value store"),
    Negative("near-discord", "Microsoft.Extensions.DependencyInjection"),
    Negative("near-telegram", "12345678:abc at line 3"),
    # The project's own words.
    Negative("project", "anamnesis init --remote git@github.com:me/memory.git"),
    Negative("project", "ANAMNESIS_HOME=~/.anamnesis"),
    Negative("project", "redact_secrets, count_secrets and find_secrets live in redact.py"),
    Negative("project", "MemoryStore.search_scored returns SearchResult with .hits"),
    Negative("project", "idx_mem_recency and memories_fts are rebuilt by reindex()"),
]


# -- Forms that got through once (issue 38), each family several ways. ------------------
# Appended last, so the values drawn above stay what they were.

_GLUED = ["ghp_" + rand(ALNUM, 36) for _ in range(3)]
_GLUED_AKIA = ["AKIA" + rand(UPPER + "234567", 16) for _ in range(3)]
_SPLIT = "ghp_" + rand(ALNUM, 36)
_KEY_RSA, _KEY_PKCS8, _KEY_EC = rsa_key_body(), pkcs8_key_body(), ec_key_body()
_KEY_SSH = openssh_key_body()


def _indented(text: str, margin: str) -> str:
    return "\n".join(margin + line for line in text.splitlines())


def _json_lines(text: str) -> str:
    return text.replace("\n", "\\n")


POSITIVES += [
    # A URL password typed raw: "#", "/", "?" or a blank in it.
    _p("url-raw-password", "postgres://app:{0}@db.internal:5432/app", raw_password("#")),
    _p(
        "url-raw-password",
        "mongodb://admin:{0}@mongo-0.internal:27017/admin?authSource=admin",
        raw_password("?"),
    ),
    _p(
        "url-raw-password",
        'MONGO_URI="mongodb+srv://svc:{0}@cluster0.ab1cd.mongodb.net/prod"',
        raw_password("/"),
    ),
    _p(
        "url-raw-password",
        "git remote set-url origin https://deploy:{0}@git.acme.dev/org/repo.git",
        raw_password(" "),
    ),
    _p("url-raw-password", "redis://:{0}@cache:6379/0", raw_password("#")),
    _p("url-raw-password", "amqp://guest:{0}@rabbit.internal/vhost", raw_password("?")),
    # A known token glued to "_", a letter or a digit, on either side.
    _p("glued-token", "GH_TOKEN{0}", _GLUED[0]),
    _p("glued-token", "export CI_{0}_backup", _GLUED[1]),
    _p("glued-token", "id1{0}", _GLUED_AKIA[0]),
    _p("glued-token", "the key id is {0}x in the log", _GLUED_AKIA[1]),
    _p(
        "glued-token",
        "SLACK{0}",
        "xoxb-" + rand(DIGITS, 12) + "-" + rand(DIGITS, 13) + "-" + rand(ALNUM, 24),
    ),
    _p("glued-token", "OPENAI{0}", "sk-proj-" + rand(URLSAFE, 58) + "T3BlbkFJ" + rand(URLSAFE, 58)),
    _p("glued-token", "key_{0}", "sk-ant-api03-" + rand(URLSAFE, 93) + "AA"),
    _p("glued-token", "{0}x was the npm token", "npm_" + rand(ALNUM, 36)),
    _p("glued-token", "old7{0}", "rubygems_" + rand(HEX, 48)),
    _p("glued-token", "STRIPE{0}_test_run", "sk_live_" + rand(ALNUM, 24)),
    # A token after a URL-encoded "=".
    _p(
        "url-encoded-token",
        "https://app.acme.dev/cb?next=%2Fsettings%3Fgh%3D{0}%26tab%3Dkeys",
        _GLUED[2],
    ),
    _p(
        "url-encoded-token",
        "https://s3.amazonaws.com/b/k?AWSAccessKeyId%3D{0}%26Expires%3D1700000000",
        _GLUED_AKIA[2],
    ),
    _p(
        "url-encoded-token",
        "curl 'https://api.acme.dev/v1?q=a%3D{0}'",
        "sk_live_" + rand(ALNUM, 24),
    ),
    _p(
        "url-encoded-token",
        "login?redirect=%2Fapi%3Faccess_token%3D{0}%26scope%3Drepo",
        "gho_" + rand(ALNUM, 36),
        # A credential key's value runs on to the next blank (as with "=").
        expected="login?redirect=%2Fapi%3Faccess_token%3D[REDACTED]",
    ),
    _p("url-encoded-token", "password%3D{0}%20", password(), expected="password%3D[REDACTED]"),
    # A token split by a character that shows nothing.
    _p("zero-width", "the token is {0}", _SPLIT[:12] + "\u200b" + _SPLIT[12:]),
    _p("zero-width", "{0} in the notes", "AKIA" + rand(UPPER + "234567", 8) + "\ufeff7QZ3KM2A"),
    _p(
        "zero-width",
        "the bot posts with {0}",
        "xoxb-" + rand(DIGITS, 12) + "\u2060-" + rand(DIGITS, 13) + "-" + rand(ALNUM, 24),
    ),
    _p("zero-width", "key {0}", "sk-ant-\u00adapi03-" + rand(URLSAFE, 93) + "AA"),
    _p("zero-width", "stripe {0}", "sk_li\u200cve_" + rand(ALNUM, 24)),
    _p("zero-width", "pass\u200dword: {0}", password()),
    # A private key's body without its BEGIN line, or without BEGIN and END.
    _p(
        "key-body",
        "{0}\n-----END RSA PRIVATE KEY-----\nthat was the old deploy key",
        _pem_lines(_KEY_RSA),
        expected="[REDACTED]\nthat was the old deploy key",
    ),
    _p("key-body", "deploy key, pasted without its header:\n{0}\n", _pem_lines(_KEY_PKCS8)),
    _p("key-body", "{0}", _pem_lines(_KEY_EC)),
    _p("key-body", "{0}\nthat was the key", _pem_lines(_KEY_SSH, 70)),
    _p(
        "key-body",
        "ssh_key: |\n{0}\n  -----END OPENSSH PRIVATE KEY-----\nuser: deploy",
        _indented(_pem_lines(openssh_key_body(), 70), "  "),
        expected="ssh_key: |\n  [REDACTED]\nuser: deploy",
    ),
    _p(
        "key-body",
        '{{"pem": "{0}\\n-----END PRIVATE KEY-----\\n", "kid": 7}}',
        _json_lines(_pem_lines(pkcs8_key_body())),
        expected='{"pem": "[REDACTED]\\n", "kid": 7}',
    ),
    _p("key-body", 'data = "{0}"', _json_lines(_pem_lines(ec_key_body()))),
]

NEGATIVES += [
    # One character repeated: a placeholder, whatever names it.
    Negative("filler", "token: " + "a" * 40),
    Negative("filler", "password: aaaaaaaaaaaa"),
    Negative("filler", 'api_key = "' + "A" * 32 + '"'),
    Negative("filler", "GITHUB_TOKEN=ghp_" + "x" * 36),
    Negative("filler", "aws_access_key_id = AKIA" + "X" * 16),
    Negative("filler", "OPENAI_API_KEY=sk-" + "x" * 48),
    Negative("filler", "https://acme.blob.core.windows.net/c?sv=2022&sig=" + "0" * 32),
    Negative("filler", "a" * 40),
    # Words glued to a token's prefix: branch names, file names, CamelCase.
    Negative("glued-words", "git checkout -b task-1234-fix-the-login-flow"),
    Negative("glued-words", "git push origin work-MyBranch-Fix-1234-LoginFlowV2"),
    Negative("glued-words", "see risk-Assessment2024-Q3-Final.docx and disk-usage-report-2024.csv"),
    Negative("glued-words", "branch task-JIRA-1234-fix-login-page is merged"),
    Negative("glued-words", "class BookmarkManagerV2FeatureFlag123 extends Base"),
    Negative("glued-words", "shelf_ExtractedTextFromPdfDocuments2 = []"),
    Negative("glued-words", "network-policy-allow-ingress-2024.yaml"),
    # URLs with no password in them, and addresses.
    Negative("url-no-password", "open http://localhost:5173/@vite/client in the browser"),
    Negative("url-no-password", "https://medium.com/@alice/why-we-moved-to-postgres"),
    Negative("url-no-password", "https://registry.npmjs.org:443/@types/node"),
    Negative("url-no-password", "http://[::1]:8080/@fs/src/main.ts"),
    Negative("url-no-password", "see https://example.com: mail me@example.org about it"),
    Negative("url-no-password", "https://example.com:8443/login?next=/@me"),
    Negative("url-no-password", "ssh://git@github.com:22/acme/api.git"),
    Negative("url-no-password", "https://deploy@git.acme.dev/org/repo.git"),
    Negative("email", "contact bob@example.com or ops@acme.dev"),
    Negative("email", "scp backup.tar user@host:~/backups/ && ssh root@10.0.0.5"),
    # Characters that show nothing, in ordinary text.
    Negative("zero-width", "a word\u200bjoined, a soft\u00adhyphen, a\u2060joiner"),
    Negative("zero-width", "\ufeffREADME: the pass\u200bword reset link expires"),
    # base64 that is no private key, with or without its armour lines.
    Negative("key-like", _pem_lines(certificate_body()) + "\n-----END CERTIFICATE-----"),
    Negative("key-like", _pem_lines(certificate_body())),
    Negative("key-like", _pem_lines(public_key_body()) + "\n-----END PUBLIC KEY-----"),
    Negative("key-like", "the file must end with -----END PRIVATE KEY----- and a newline"),
    Negative("key-like", "body: " + base64.b64encode(b'{"user": "bob", "role": "admin"}').decode()),
]
