"""Fake but format-correct secrets, each in the setting where pages and replies show it, and
look-alike prose that must survive redaction unchanged.

The values are assembled from parts so that no scanner mistakes this file for a leak.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Planted:
    kind: str
    text: str  # how the secret appears
    secret: str  # what must never be stored, logged or sent


def _p(kind: str, template: str, secret: str) -> Planted:
    return Planted(kind, template.format(s=secret), secret)


OPENAI = "sk-" + "proj-" + "Xq3vT9bLm2Wd8Kp1Rf6Yz0Nc4Hs7Ja5Ue"
ANTHROPIC = "sk-" + "ant-api03-" + "Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LzXcVbNm9"
OPENROUTER = "sk-" + "or-v1-" + "5f0c7a9e3b2d41c8a6e7f9b0d1c2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0"
OPENAI_LEGACY = "sk-" + "T3BlbkFJ9xKq2Lm7Np4Rs8Vt1Wy6Za3Bc5De0Fg2Hj4Kl"
STRIPE_LIVE = "sk_" + "live_" + "51Hx9AbCdEfGhIjKlMnOpQrSt"
STRIPE_RESTRICTED = "rk_" + "live_" + "51Hx9ZyXwVuTsRqPoNmLkJiHg"
STRIPE_TEST = "sk_" + "test_" + "4eC39HqLyjWDarjtT1zdp7dc"
STRIPE_WEBHOOK = "whsec_" + "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
AWS_ACCESS = "AKIA" + "IOSFODNN7EXAMPLE"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY"
AWS_SECRET_2 = "je7MtGbClwBF/2Zp9Utk/" + "h3yCo8nvbEXAMPLEKEY"
GITHUB_CLASSIC = "ghp_" + "16C7e42F292c6912E7710c838347Ae178B4a"
GITHUB_OAUTH = "gho_" + "16C7e42F292c6912E7710c838347Ae178B4b"
GITHUB_FINE = (
    "github_pat_"
    + "11ABCDEFG0a1b2c3d4e5f6_"
    + "g7h8i9j0k1l2m3n4o5p6q7r8s9t0u1v2w3x4y5z6A7B8C9D0E1F2"
)
GITLAB = "glpat-" + "xZ9yW8vU7tS6rQ5pO4nM"
SLACK_BOT = "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
SLACK_USER = "xoxp-" + "123456789012-1234567890123-1234567890123-0a1b2c3d4e5f"
SLACK_HOOK_PATH = "T00000000/B00000000/" + "XXXXXXXXXXXXXXXXXXXXXXXX"
DISCORD_HOOK_PATH = "123456789012345678/" + "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-"
GOOGLE_KEY = "AIza" + "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"
GOOGLE_OAUTH = "ya29." + "a0AfH6SMBx1y2z3A4b5C6d7E8f9G0h1I2j3K4l"
JWT = (
    "eyJ" + "hbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    ".eyJ" + "zdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ"
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)
RSA_BODY = "MIIEowIBAAKCAQEAr7Xq9hJ2kL4mN6pQ8sT0vW2yZ4bD6fH8jK0lM2nP4qR6sT8u"
OPENSSH_BODY = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtz"
NPM = "npm_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
HUGGINGFACE = "hf_" + "aBcDeFgHiJkLmNoPqRsTuVwXyZ012345678"
SENDGRID = "SG." + "ngeVfQFYQlKU0ufo8x5d1A.TwL2iGABf9DHoTf-09kqeF8tAmbihYzrnopKc-1s5cr"
TELEGRAM = "123456789:" + "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0"
SHOPIFY = "shpat_" + "0123456789abcdef0123456789abcdef"
BEARER = "mF_9.B5f-4.1JqM"
BASIC = "QWxhZGRpbjpvcGVuIHNlc2FtZQ=="
COOKIE_VALUE = "s%3Ab7c1e9f2a4d8.Kq9xZ2"
PASSWORD = "hunter2Xq!"
CAMEL_TOKEN = "at-4f9c2b7e1d3a8c6b"
PRIVATE_TOKEN = "pt-91ab73cd55ef"
API_TOKEN = "apt-7d1e4f9a2b6c"
GOOG_SIGNATURE = "3f1c9a7e5b2d4f6a8c0e1b3d5f7a9c2e"
AMZ_SIGNATURE = "fe5f80f77d5fa3beca038a248ff027d0445342fe2855ddc963176630326f1024"
AMZ_CREDENTIAL = "AKIA" + "JEXAMPLEKEYID99"
CLIENT_SECRET = "cs-8Hq2Lw9Zx4Ty"
ACCESS_FRAGMENT = "fa-2b7c9d1e4f6a8b0c"
ID_TOKEN_FRAGMENT = "fi-5e3d1c9b7a2f4e6d"
URL_PASSWORD = "pw-Zk8Qm2Lx7"
DB_PASSWORD = "S3cr3t!pass"
# Found by the outside review (issue 12): multi-word names, escaped quotes, long values,
# Unicode spaces, config syntaxes, `@` inside a URL password, keys split by inline markup.
SPACED_API_KEY = "Hk8fQ2mZ7rT4"
ESCAPED_TAIL = "Pw7Qz9Lm3Rt"
AWS_STS = "IQoJb3JpZ2luX2VjEJr" + "AbCdEfGh0123456789" * 30  # a 559-character session token
LONG_SESSION = "Zx9" + "q" * 300 + "Y7w" + "k" * 300  # a 606-character opaque session value
NBSP_PASSWORD = "Nb5Vx8Kw2Jq"
AT_PASSWORD_TAIL = "Wq8Lp2Mn"
CONFIG_PASSWORD = "Hunter7Pass"

PLANTED: tuple[Planted, ...] = (
    _p("openai project key", "export OPENAI_API_KEY={s}", OPENAI),
    _p("anthropic key", "my key is {s} please keep it", ANTHROPIC),
    _p("openrouter key", "Use {s} for OpenRouter.", OPENROUTER),
    _p("openai legacy key", "the old key {s} still works", OPENAI_LEGACY),
    _p("stripe live secret key", "Stripe.api_key('{s}')", STRIPE_LIVE),
    _p("stripe restricted key", "restricted: {s}", STRIPE_RESTRICTED),
    _p("stripe test key", "curl -u {s}: https://api.stripe.com", STRIPE_TEST),
    _p("stripe webhook secret", "signing secret {s}", STRIPE_WEBHOOK),
    _p("aws access key id", "The id is {s} for the bucket.", AWS_ACCESS),
    _p("aws secret key, named", "aws_secret_access_key = {s}", AWS_SECRET),
    _p("aws secret key, alone", "then paste {s} into the form", AWS_SECRET_2),
    _p("github classic token", "git clone with {s}", GITHUB_CLASSIC),
    _p("github oauth token", "token {s} expired", GITHUB_OAUTH),
    _p("github fine-grained token", "PAT: {s}", GITHUB_FINE),
    _p("gitlab token", "GITLAB={s}", GITLAB),
    _p("slack bot token", "SLACK_BOT_TOKEN {s}", SLACK_BOT),
    _p("slack user token", "user token {s} here", SLACK_USER),
    _p("slack webhook", "POST https://hooks.slack.com/services/{s} now", SLACK_HOOK_PATH),
    _p("discord webhook", "https://discord.com/api/webhooks/{s}", DISCORD_HOOK_PATH),
    _p("google api key", "maps key {s}.", GOOGLE_KEY),
    _p("google oauth token", "access {s} granted", GOOGLE_OAUTH),
    _p("json web token", "the id token is {s}", JWT),
    _p(
        "pem private key",
        "-----BEGIN RSA PRIVATE KEY-----\n{s}\n-----END RSA PRIVATE KEY-----",
        RSA_BODY,
    ),
    _p(
        "openssh private key, whitespace collapsed",
        "-----BEGIN OPENSSH PRIVATE KEY----- {s} -----END OPENSSH PRIVATE KEY-----",
        OPENSSH_BODY,
    ),
    _p("npm token", "//registry.npmjs.org/:_authToken={s}", NPM),
    _p("hugging face token", "HF token {s}", HUGGINGFACE),
    _p("sendgrid key", "SENDGRID {s}", SENDGRID),
    _p("telegram bot token", "https://api.telegram.org/bot{s}/getMe", TELEGRAM),
    _p("shopify token", "X-Shopify-Access-Token {s}", SHOPIFY),
    _p("bearer header", "Authorization: Bearer {s}", BEARER),
    _p("bearer, alone", "send bearer {s} along", BEARER),
    _p("basic header", "Authorization: Basic {s}", BASIC),
    _p("cookie header", "Cookie: connect.sid={s}; theme=dark", COOKIE_VALUE),
    _p("set-cookie header", "Set-Cookie: session={s}; Path=/; HttpOnly", COOKIE_VALUE),
    _p("password, colon", "password: {s}", PASSWORD),
    _p("password, plain word at line end", "Password: {s}", "correcthorsebattery"),
    _p("password, json", '{{"user":"bob","password":"{s}"}}', PASSWORD),
    _p("password, shell", "export DB_PASSWORD='{s}'", DB_PASSWORD),
    _p("api-key, kebab", "api-key={s}", "k-7f3a9c1e5b"),
    _p("accessToken, camel", "accessToken={s}", CAMEL_TOKEN),
    _p("private_token, prefixed", "?private_token={s}", PRIVATE_TOKEN),
    _p("api_token", "api_token: {s}", API_TOKEN),
    _p("jwt parameter", "jwt={s}", "j-0a9b8c7d6e"),
    _p("x-goog-signature", "&X-Goog-Signature={s}", GOOG_SIGNATURE),
    _p("client_secret, yaml", "client_secret: {s}", CLIENT_SECRET),
    _p("x-api-key header", "x-api-key: {s}", "xk-123abc456def"),
    _p("api key, spaced, in a sentence", "Your API key: {s}", SPACED_API_KEY),
    _p(
        "api key, spaced, with a note after",
        "Note: your API key: {s} (do not share).",
        "Kw3Rt8Zq1Mx6",
    ),
    _p("secret key, spaced, equals", "Secret key = {s}", "Sk9Lm2Qw7Rt4"),
    _p("access token, lower case", "access token: {s}", "at9Xk2Lm7Qw4Rz"),
    _p("client secret, title case", "Client Secret: {s}", "Cs4Rt9Lq2Wm7"),
    _p("refresh token, kebab", "refresh-token: {s}", "rt-9Kq2Lw7Zm4"),
    _p("session id, spaced", "Session ID: {s}", "Sx7Kq2Lw9Zm4"),
    _p("password, escaped quote", '{{"password": "x\\"{s}"}}', ESCAPED_TAIL),
    _p("password, escaped quote doubled by markdown", '{{"password": "ab\\\\"{s}"}}', ESCAPED_TAIL),
    _p("long quoted session token", 'aws_session_token = "{s}"', AWS_STS),
    _p("long bare session token", "session_token={s} then more", LONG_SESSION),
    _p("long quoted json session", '{{"session": "{s}"}}', LONG_SESSION),
    _p("password after a no-break space", "Password:\u00a0{s}", NBSP_PASSWORD),
    _p("password after an ideographic space", "password:\u3000{s}", NBSP_PASSWORD),
    _p("password after a fullwidth colon", "password\uff1a{s}", NBSP_PASSWORD),
    _p("password, aligned", "password     =     {s}", CONFIG_PASSWORD),
    _p("password, tabs", "password\t=\t{s}", CONFIG_PASSWORD),
    _p("password, php array", "'password' => '{s}',", CONFIG_PASSWORD),
    _p("password, go walrus", 'password := "{s}"', CONFIG_PASSWORD),
    _p("password, xml element", "<password>{s}</password>", CONFIG_PASSWORD),
    _p("password, xml escaped by markdown", "\\<password>{s}\\</password>", CONFIG_PASSWORD),
    _p("password, cli flag and space", "mysql --password {s} --user bob", CONFIG_PASSWORD),
    _p("password, cli flag and equals", "run --password={s}", CONFIG_PASSWORD),
    _p("password, env DB_PASS", "DB_PASS={s}", CONFIG_PASSWORD),
    _p("password, env PGPASSWORD", "PGPASSWORD={s} psql", CONFIG_PASSWORD),
    _p("password, env MYSQL_PWD", "export MYSQL_PWD={s}", CONFIG_PASSWORD),
    _p("password, yaml", "db:\n  password: {s}\n  host: x", CONFIG_PASSWORD),
    _p("password, yaml next line", "password:\n  {s}\n", CONFIG_PASSWORD),
    _p("password, toml", '[db]\npassword = "{s}"', CONFIG_PASSWORD),
    _p("password, ini", "[db]\npassword={s}\n", CONFIG_PASSWORD),
    _p(
        "url password holding an @",
        "postgres://app:Tz4@{s}@db.example.com:5432/app",
        AT_PASSWORD_TAIL,
    ),
    _p("github token split by bold", "ghp\\_**{s}**", GITHUB_CLASSIC[4:]),
    _p("github token split by code", "ghp\\_`{s}`", GITHUB_CLASSIC[4:]),
    _p("openai key split by emphasis", "sk-proj-*{s}*", OPENAI[8:]),
    _p("jwt split by a soft hyphen", JWT.replace(".", "\u00ad.", 1), JWT[40:80]),
    _p("api key, is before the colon", "Your API key is: {s}", "Ky8Qw2Lm7Rt4"),
    _p("api key, no-break space inside the name", "API\u00a0key: {s}", "Ky9Qw3Lm8Rt5"),
    _p("password, env single word", "PASS={s}", CONFIG_PASSWORD),
    _p("password, .NET appSettings", '<add key="DbPassword" value="{s}" />', CONFIG_PASSWORD),
    _p(
        "password, java property element",
        "<property name='password' value='{s}'/>",
        CONFIG_PASSWORD,
    ),
)

# Secrets that live in URLs: (url, secret). Every URL field must lose them.
PLANTED_URLS: tuple[tuple[str, str], ...] = (
    (f"https://example.org/cb#access_token={ACCESS_FRAGMENT}&token_type=bearer", ACCESS_FRAGMENT),
    (f"https://example.org/cb#id_token={ID_TOKEN_FRAGMENT}", ID_TOKEN_FRAGMENT),
    (f"https://example.org/app#/callback?code={CAMEL_TOKEN}&state=x", CAMEL_TOKEN),
    (f"https://admin:{URL_PASSWORD}@example.org/panel", URL_PASSWORD),
    (f"https://admin:{URL_PASSWORD}@example.org:99999/panel", URL_PASSWORD),
    (f"https://admin:{URL_PASSWORD}@[::1/panel", URL_PASSWORD),
    (f"https://example.org/a?accessToken={CAMEL_TOKEN}&page=2", CAMEL_TOKEN),
    (f"https://example.org/a?private_token={PRIVATE_TOKEN}", PRIVATE_TOKEN),
    (f"https://example.org/a?api_token={API_TOKEN}", API_TOKEN),
    (f"https://example.org/a?jwt={JWT}", JWT),
    (f"https://storage.googleapis.com/b/o?X-Goog-Signature={GOOG_SIGNATURE}", GOOG_SIGNATURE),
    (
        f"https://s3.amazonaws.com/b/k?X-Amz-Credential={AMZ_CREDENTIAL}%2F20260101"
        f"&X-Amz-Signature={AMZ_SIGNATURE}",
        AMZ_SIGNATURE,
    ),
    (f"https://maps.example.com/api?key={GOOGLE_KEY}", GOOGLE_KEY),
    (f"https://example.org/p;jsessionid={CAMEL_TOKEN}?x=1", CAMEL_TOKEN),
    (f"https://hooks.slack.com/services/{SLACK_HOOK_PATH}", SLACK_HOOK_PATH),
    (f"myapp://oauth#access_token={ACCESS_FRAGMENT}", ACCESS_FRAGMENT),
)

# Prose and URLs that only look like secrets: they come out exactly as they went in.
LOOKALIKES: tuple[str, ...] = (
    "the token economy",
    "a password manager keeps them",
    "install sk-learn first",
    "the sk-learn-tutorial-for-beginners series",
    "keyboard shortcuts",
    "https://example.org/list?page=2&sort=key",
    "https://example.org/docs?section=auth-tokens#token-types",
    "Session: 3",
    "Password: required to enter",
    "Authorization: required to enter",
    "Bearer of bad news",
    "the bearer authentication scheme",
    "Cookie: a recipe for chocolate chip cookies",
    "the token= field",
    "max_tokens=1024 and input_tokens: 12",
    "write each setting as key=value",
    "Signature: John Smith",
    "Author: Jane Doe",
    "secretary: Ann",
    "Tokenizer: BPE",
    "commit da39a3ee5e6b4b0d3255bfef95601890afd80709 fixed it",
    "ssh://git@github.com/org/repo.git",
    "mailto:someone@example.org",
    "a 16:9 screen at 10:30:00",
    "Passkey: use your fingerprint",
    "the monkey=42 case",
    "ASIAN markets and the AWS console",
    "https://example.org/#:~:text=the%20token%20economy",
    "https://example.org/page#section-2",
    "The secret: patience and practice.",
    # a name is secret by its head, its last word: these count, limit or describe secrets
    "token_count=12",
    "token_limit: 4096",
    "session_timeout=3600",
    "password_min_length=12",
    "token_type=bearer",
    "signature_version=4",
    "cookie_consent=accepted",
    "Password length: 12",
    "https://example.org/cb?token_type=bearer&expires_in=3600",
    # prose after a weak name: words, a word with a year, small numbers
    "Session: Fall2024 keynote",
    "Token: ERC20 standard",
    "Token: ERC-20 standard",
    "Secrets: 3 found in the scan",
    "Password: 8+ characters, one digit",
    "Bearer Bonds2024 were issued",
    "Signature: SHA256withRSA algorithm",
    "Auth: OAuth2.0 flows",
    "Token: BTC/USD pair",
    "Passwords: see below",
    "Secret: The Story",
    "Conference Session: Spring2025",
    "Key: C#m",
    "Player ID: Abc12345x",
    "the csrf=true flag",
    "session=1 week",
    "sig=1 is fine",
    "max_session=30",
    "use the --password flag to set it",
    "Password: (optional)",
    "Pass: 3 attempts left",
    "pass=1",
    '<add key="PageSize" value="20" />',
)
