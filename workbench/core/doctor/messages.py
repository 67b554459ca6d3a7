"""Every sentence the doctor says to a user, marked for the UI's translation files.

The checks build their evidence, causes and fixes as `phrase(messages.NAME, field=value)`
(evidence and skip reasons in the section at the end); lupdate collects
the texts of the QT_TRANSLATE_NOOP calls here (scripts/update_translations.sh), in the context
"Doctor", and the UI shows them in its language. Fields in {braces} are data: never translated.
The order follows the checks' order.
"""

from workbench.core.foundation.i18n import QT_TRANSLATE_NOOP

LEADING_NEWLINE = QT_TRANSLATE_NOOP("Doctor", "a leading newline")
LEADING_SPACES = QT_TRANSLATE_NOOP("Doctor", "leading spaces")
TRAILING_NEWLINE = QT_TRANSLATE_NOOP("Doctor", "a trailing newline")
TRAILING_SPACES = QT_TRANSLATE_NOOP("Doctor", "trailing spaces")
FIRST_SECOND = QT_TRANSLATE_NOOP("Doctor", "{first} and {second}")
KEY_HAS_WHERE_WHITESPACE_AROUND_COPY = QT_TRANSLATE_NOOP(
    "Doctor",
    "the key has {where} (whitespace around it: a copy-paste or `$(cat file)` leftover); "
    "sent as is, servers answer 401, and a newline cannot even be sent in a header",
)
KEY_WRAPPED_QUOTES_BECAME_PART = QT_TRANSLATE_NOOP(
    "Doctor",
    "the key is wrapped in quotes, which became part of it",
)
KEY_STARTS_BEARER_CLIENT_ADDS_WORD = QT_TRANSLATE_NOOP(
    "Doctor",
    "the key starts with 'Bearer ': the client adds that word itself",
)
KEY_HAS_SPACES_INSIDE_INCOMPLETE_JOINED = QT_TRANSLATE_NOOP(
    "Doctor",
    "the key has spaces inside it (an incomplete or joined copy?)",
)
KEY_HAS_NON_ASCII_CHARACTERS_PROBABLY = QT_TRANSLATE_NOOP(
    "Doctor",
    "the key has non-ASCII characters: probably the placeholder text of an example (like "
    "你的_API_Key) rather than a real key",
)
BASE_URL_NOT_USABLE_PROBLEM = QT_TRANSLATE_NOOP("Doctor", "the base URL is not usable: {problem}")
WRITE_BASE_URL_PROVIDER_DOCUMENTS_LIKE = QT_TRANSLATE_NOOP(
    "Doctor",
    "write the base URL the provider documents, like https://host/v1",
)
BASE_URL_NOT_BASE_FORM_NOTES = QT_TRANSLATE_NOOP(
    "Doctor",
    "the base URL is not in base form: {notes}",
)
FULL_ENDPOINT_URL_PASTED_SDK_APPENDS = QT_TRANSLATE_NOOP(
    "Doctor",
    " (a full endpoint URL was pasted; the SDK appends /chat/completions itself, so the "
    "request would go to .../chat/completions/chat/completions)",
)
BASE_URL_SHOULD_URL = QT_TRANSLATE_NOOP("Doctor", "the base URL should be {url}")
LOCAL_PROXY_FAILED_REQUESTS_HOST_GO = QT_TRANSLATE_NOOP(
    "Doctor",
    "local proxy failed: requests to this host go through {proxy} ({source}), and it does"
    " not answer: {names}",
)
LOCAL_PROXY_FAILED_NAMES_POINTS_PROXY = QT_TRANSLATE_NOOP(
    "Doctor",
    "local proxy failed: {names} points at a proxy nothing answers on; this host is "
    "reached directly ({reason}), but other hosts and other tools that read these "
    "variables will fail",
)
UNSET_FIX_START_PROXY_CORRECT_HOST = QT_TRANSLATE_NOOP(
    "Doctor",
    "unset it or fix it (start the proxy, or correct its host and port); a local server "
    "is reached directly",
)
HOST_NAME_HOST_DOES_NOT_RESOLVE = QT_TRANSLATE_NOOP(
    "Doctor",
    "the host name {host} does not resolve: a typo in the {url}, or no network / DNS here",
)
PROXY_URL = QT_TRANSLATE_NOOP("Doctor", "proxy URL")
BASE_URL = QT_TRANSLATE_NOOP("Doctor", "base URL")
CHECK_SPELLING_HOST_COPY_PROVIDER = QT_TRANSLATE_NOOP(
    "Doctor",
    "check the spelling of the host (copy it from the provider's docs) and that this "
    "machine is online",
)
NOTHING_LISTENS_WHO_SERVER_NOT_RUNNING = QT_TRANSLATE_NOOP(
    "Doctor",
    "nothing listens on {who}: the server is not running, or the port is wrong",
)
WHO_CANNOT_REACHED_WHY_FIREWALL_WRONG = QT_TRANSLATE_NOOP(
    "Doctor",
    "{who} cannot be reached ({why}): a firewall, a wrong host, or a network that needs a"
    " proxy (a timeout)",
)
START_SERVER_CORRECT_PORT_BASE_URL = QT_TRANSLATE_NOOP(
    "Doctor",
    "start the server, or correct the port in the base URL",
)
CHECK_HOST_PORT_IF_NETWORK_NEEDS = QT_TRANSLATE_NOOP(
    "Doctor",
    "check the host and port; if this network needs a proxy, set HTTPS_PROXY; a local "
    "server is reached directly",
)
IF_CORPORATE_PROXY_ANTIVIRUS_INSPECTS_TLS = QT_TRANSLATE_NOOP(
    "Doctor",
    "if a corporate proxy or antivirus inspects TLS, install its root certificate (or "
    "point SSL_CERT_FILE at it); otherwise tell the provider. Turn verification off only "
    "for a lab server, with its warning shown",
)
PORT_DOES_NOT_SPEAK_TLS_SERVER = QT_TRANSLATE_NOOP(
    "Doctor",
    "the port does not speak TLS: the server answers plain HTTP",
)
TLS_HANDSHAKE_FAILED_OLD_TLS_VERSION = QT_TRANSLATE_NOOP(
    "Doctor",
    "the TLS handshake failed (an old TLS version, or something between you and the server cut it)",
)
USE_HTTP_INSTEAD_OF_HTTPS_FOR_PORT = QT_TRANSLATE_NOOP(
    "Doctor",
    "use http:// instead of https:// for port {port}",
)
CHECK_URL_SCHEME_PORT_WITHOUT_PROXY = QT_TRANSLATE_NOOP(
    "Doctor",
    "check the URL's scheme and port; try without a proxy or VPN",
)
PROXY_URL_CANNOT_USED_CLIENT = QT_TRANSLATE_NOOP(
    "Doctor",
    "the proxy URL cannot be used by this client",
)
USE_HTTP_PROXY_SET_PROVIDER = QT_TRANSLATE_NOOP(
    "Doctor",
    "use an http:// proxy, or set the provider's proxy to 'none'",
)
PROXY_CANNOT_USED = QT_TRANSLATE_NOOP("Doctor", "the proxy cannot be used")
USE_HTTP_PROXY = QT_TRANSLATE_NOOP("Doctor", "use an http:// proxy")
SERVER_ACCEPTED_CONNECTION_BUT_GAVE_NO = QT_TRANSLATE_NOOP(
    "Doctor",
    "the server accepted the connection but gave no HTTP answer ({error})",
)
CHECK_URL_SCHEME_PORT_ARE_API = QT_TRANSLATE_NOOP(
    "Doctor",
    "check that the URL's scheme and port are the API's; raise the timeout for a slow "
    "server; try without a proxy",
)
BASE_URL_LACKS_V1_SERVER = QT_TRANSLATE_NOOP(
    "Doctor",
    "the base URL lacks /v1: this server's API lives under /v1",
)
BASE_URL_HAS_EXTRA_V1_SERVER = QT_TRANSLATE_NOOP(
    "Doctor",
    "the base URL has an extra /v1: this server's API root has no /v1 (the SDK appends "
    "/chat/completions to the base URL as given)",
)
ALT_PROBABLY_ANSWERS_BASE_DOES_NOT = QT_TRANSLATE_NOOP(
    "Doctor",
    "{alt} probably answers, {base} does not",
)
ALT_ANSWERS_BASE_DOES_NOT = QT_TRANSLATE_NOOP("Doctor", "{alt} answers, {base} does not")
WHAT_ANSWERS_404_WRONG_V1 = QT_TRANSLATE_NOOP(
    "Doctor",
    "{what}; {answers} (the 404 of a wrong /v1)",
)
NEITHER_BASE_URL_NOR_V1_VARIANT_HTML = QT_TRANSLATE_NOOP(
    "Doctor",
    "neither the base URL nor its /v1 variant answers /models or /chat/completions: the "
    "path is wrong, or a web site (HTML) answered instead of the API, or this is not an "
    "OpenAI-compatible API",
)
NEITHER_BASE_URL_NOR_V1_VARIANT = QT_TRANSLATE_NOOP(
    "Doctor",
    "neither the base URL nor its /v1 variant answers /models or /chat/completions: the "
    "path is wrong, or this is not an OpenAI-compatible API",
)
URL_SPEAKS_OTHER_NOT_CHOSEN = QT_TRANSLATE_NOOP(
    "Doctor",
    "this URL speaks {other}, not {chosen}: POST ...{path} is not there, while POST "
    "...{other_path} answers in its shape",
)
USE_PROTOCOL_OTHER = QT_TRANSLATE_NOOP(
    "Doctor",
    'use --protocol {protocol} (or protocol = "{protocol}" for the provider)',
)
USE_API_BASE_URL_PROVIDER = QT_TRANSLATE_NOOP(
    "Doctor",
    "use the API base URL from the provider's docs (not the web site's address)",
)
PROVIDER_EXTRA_HEADERS_SET_HEADER = QT_TRANSLATE_NOOP(
    "Doctor",
    "the provider's extra headers set '{header}', which replaces the key: a leftover "
    "OAuth login or an old token is sent instead",
)
NO_KEY_SENT_SERVER_WANTS_ONE = QT_TRANSLATE_NOOP(
    "Doctor",
    "no key was sent and the server wants one",
)
KEY_SHOULD_COME_SOURCE = QT_TRANSLATE_NOOP("Doctor", "; the key should come from {source}")
SET_KEY_API_KEY_ENV_VAR = QT_TRANSLATE_NOOP(
    "Doctor",
    "set the key: --api-key-env VAR, or the provider's key; for an environment variable, "
    "export it in this shell (a changed config needs a new terminal or a reloaded window)",
)
SERVER_WANTS_KEY_HEADER_HEADER_NOT = QT_TRANSLATE_NOOP(
    "Doctor",
    "the server wants the key in the header '{header}', not in 'Authorization: Bearer'",
)
SERVER_WANTS_KEY_HEADER_NOT_SENT = QT_TRANSLATE_NOOP(
    "Doctor",
    "the server wants the key in the header '{header}', not in '{sent}'",
)
SERVER_WANTS_BEARER_NOT_HEADER = QT_TRANSLATE_NOOP(
    "Doctor",
    "the server wants the key as 'Authorization: Bearer', not in the header '{header}'",
)
SET_AUTH_BEARER_PROVIDER = QT_TRANSLATE_NOOP(
    "Doctor",
    'set auth = "bearer" for the provider (a Claude Code ANTHROPIC_AUTH_TOKEN is sent that way)',
)
ADD_HEADER_HEADER_KEY_PROVIDER = QT_TRANSLATE_NOOP(
    "Doctor",
    "add the header '{header}: <key>' to the provider's extra headers",
)
REMOVE_HEADER_HEADER_PROVIDER_EXTRA = QT_TRANSLATE_NOOP(
    "Doctor",
    "remove the '{header}' header from the provider's extra headers",
)
KEY_SENT_REJECTED_MISTYPED_COPIED_INCOMPLETELY = QT_TRANSLATE_NOOP(
    "Doctor",
    "the key was sent and rejected: mistyped, copied incompletely, deleted or expired, or"
    " a key of another provider",
)
SERVER_MENTIONS_HEADER_HEADER = QT_TRANSLATE_NOOP(
    "Doctor",
    "; the server mentions the header '{header}'",
)
COPY_KEY_AGAIN_PROVIDER_CONSOLE = QT_TRANSLATE_NOOP(
    "Doctor",
    "copy the key again from the provider's console (keys show once); check that the "
    "variable holds it whole (echo ${VAR:0:6}); if a tool logged in with OAuth before, "
    "clear its old login so the key is used",
)
MODEL_LIST_NOT_OPENAI_SHAPE_DATA = QT_TRANSLATE_NOOP(
    "Doctor",
    'the model list is not the OpenAI shape {"data": [{"id": ...}]}: the endpoint is not '
    "OpenAI-compatible (the 'reading choices' kind of error)",
)
CHECK_BASE_URL_PROVIDER_OPENAI = QT_TRANSLATE_NOOP(
    "Doctor",
    "check that the base URL is the provider's OpenAI-compatible one",
)
USE_FIRST_OTHERS_MODEL_IDS_MUST = QT_TRANSLATE_NOOP(
    "Doctor",
    "use '{first}' (or {others}); model ids must match the server's list exactly",
)
USE_FIRST_MODEL_IDS_MUST_MATCH = QT_TRANSLATE_NOOP(
    "Doctor",
    "use '{first}'; model ids must match the server's list exactly",
)
NO_CHOICES_TEXT_CAME_BACK_READING = QT_TRANSLATE_NOOP(
    "Doctor",
    " (no `choices` with text came back: the 'reading choices' error; the endpoint or the"
    " model id routes to something not OpenAI-compatible)",
)
EVEN_1_TOKEN_TOOK_OVER_SECONDS = QT_TRANSLATE_NOOP("Doctor", "; even 1 token took over {seconds} s")
GATEWAY_LISTS_MODEL_BUT_UPSTREAM_REFUSES = QT_TRANSLATE_NOOP(
    "Doctor",
    "the gateway lists this model, but its upstream refuses it (HTTP {status}): {words}",
)
CHECK_GATEWAY_ROUTE_MODEL_UPSTREAM = QT_TRANSLATE_NOOP(
    "Doctor",
    "check the gateway's route for this model: the upstream's model id, address and key "
    "in the gateway's configuration, and the upstream's own logs",
)
SERVER_ANSWERED_MODELS_ONCE_THEN_FAILED = QT_TRANSLATE_NOOP(
    "Doctor",
    "the server answered /models once, then failed (flaky server or network)",
)
SERVER_ANSWERED_CHAT_ONCE_THEN_FAILED = QT_TRANSLATE_NOOP(
    "Doctor",
    "the server answered a streamed request once, then failed while it was timed (flaky server "
    "or network)",
)
RETRY_IF_REPEATS_REPORT_PROVIDER = QT_TRANSLATE_NOOP(
    "Doctor",
    "retry; if it repeats, report it to the provider",
)
WAIT_SECONDS_RETRY_AFTER_THEN = QT_TRANSLATE_NOOP(
    "Doctor",
    "wait {seconds} s (Retry-After), then retry; ",
)
PROXY_WANTS_LOGIN_HTTP_407_ANSWERED = QT_TRANSLATE_NOOP(
    "Doctor",
    "the proxy wants a login (HTTP 407) and answered with its own page",
)
WEB_PAGE_ANSWERED_HTTP_200_BASE = QT_TRANSLATE_NOOP(
    "Doctor",
    "a web page answered with HTTP 200: the base URL points at the web site, not at the "
    "API (the 'reading choices' error: no JSON `choices` in an HTML page)",
)
HERE_PROXY_GATEWAY_ANSWERED_HTTP_CODES = QT_TRANSLATE_NOOP(
    "Doctor",
    "; here a proxy or gateway answered HTTP {codes} with its own error page",
)
SERVER_GENERATED_TOKENS_COMPLETION_TOKENS_TOKENS = QT_TRANSLATE_NOOP(
    "Doctor",
    "the server generated tokens (completion_tokens {tokens}, finish_reason {finish}) but"
    " sent none as visible text: special tokens it does not decode (an end-of-turn or a "
    "thinking marker), or a character cut in the middle of its UTF-8 bytes. The model id "
    "is fine: it answered",
)
RAISE_MAX_TOKENS_FINISH_REASON_LENGTH = QT_TRANSLATE_NOOP(
    "Doctor",
    "raise max_tokens (with finish_reason length the answer may not have reached any text"
    " yet); check the model's chat template and tokenizer on the server: does it stop at,"
    " or print, its end-of-turn token?",
)
SERVER_CERTIFICATE_HAS_EXPIRED = QT_TRANSLATE_NOOP(
    "Doctor",
    "the server's certificate has expired",
)
CERTIFICATE_SELF_SIGNED_NOT_ISSUED_TRUSTED = QT_TRANSLATE_NOOP(
    "Doctor",
    "the certificate is self-signed, not issued by a trusted authority (a lab server, or "
    "a corporate proxy that inspects TLS)",
)
CERTIFICATE_ISSUER_NOT_TRUSTED_HERE = QT_TRANSLATE_NOOP(
    "Doctor",
    "the certificate's issuer is not trusted here (a missing intermediate certificate, or"
    " a corporate root certificate not installed on this machine)",
)
CERTIFICATE_ANOTHER_HOST_NAME_NOT_HOST = QT_TRANSLATE_NOOP(
    "Doctor",
    "the certificate is for another host name, not {host}",
)
CERTIFICATE_NOT_VALID_YET_CHECK_MACHINE = QT_TRANSLATE_NOOP(
    "Doctor",
    "the certificate is not valid yet (check this machine's clock)",
)
CERTIFICATE_REFUSED_MESSAGE = QT_TRANSLATE_NOOP("Doctor", "the certificate was refused: {message}")
STORE_BARE_KEY_NO_SPACES_NEWLINE = QT_TRANSLATE_NOOP(
    "Doctor",
    "store the bare key: no spaces, newline, quotes or 'Bearer ' around it (export "
    "VAR=sk-... ; read files with `tr -d '\\n'`)",
)
COPY_KEY_AGAIN_WHOLE_PROVIDER = QT_TRANSLATE_NOOP(
    "Doctor",
    "copy the key again, whole, from the provider's console",
)
REPLACE_PLACEHOLDER_YOUR_REAL_KEY = QT_TRANSLATE_NOOP(
    "Doctor",
    "replace the placeholder with your real key",
)
REMOVE_AUTHORIZATION_HEADER_PROVIDER_EXTRA = QT_TRANSLATE_NOOP(
    "Doctor",
    "remove the Authorization header from the provider's extra headers",
)
CHECK_KEY = QT_TRANSLATE_NOOP("Doctor", "check the key")

# Evidence: what each check saw, in the checks' order. The fields are data (URLs, hosts,
# status codes, times, a server's own words), or phrases from here.
SKIPPED_REASON = QT_TRANSLATE_NOOP("Doctor", "skipped: {reason}")
EV_NO_ANSWER = QT_TRANSLATE_NOOP("Doctor", "no answer ({error})")
NO_ANSWER_WITHIN = QT_TRANSLATE_NOOP("Doctor", "no answer within {seconds} s")
PROXY_FAILED_ERROR = QT_TRANSLATE_NOOP("Doctor", "proxy failed: {error}")
EV_ANSWERED = QT_TRANSLATE_NOOP("Doctor", "{answer} ({ms} ms)")
NO_USABLE_BASE_URL = QT_TRANSLATE_NOOP("Doctor", "no usable base URL (see base_url)")
AN_EARLIER_CHECK_FAILED = QT_TRANSLATE_NOOP("Doctor", "an earlier check failed")
EV_BASE_URL_AS_GIVEN = QT_TRANSLATE_NOOP("Doctor", "'{raw}'")
EV_BASE_URL_BECAME = QT_TRANSLATE_NOOP("Doctor", "'{raw}' → {url}")
EV_NOTES = QT_TRANSLATE_NOOP("Doctor", " ({notes})")
EV_NO_PROXY_VARIABLES = QT_TRANSLATE_NOOP("Doctor", "no proxy variables set")
EV_FOR_THIS_HOST = QT_TRANSLATE_NOOP("Doctor", "; for this host: {reason}")
EV_PROXY_VARIABLES_IGNORED = QT_TRANSLATE_NOOP(
    "Doctor", " (the variables are ignored for this provider)"
)
SKIP_PROXY_DOES_NOT_ANSWER = QT_TRANSLATE_NOOP(
    "Doctor", "the proxy that carries this host's requests does not answer (proxy)"
)
EV_PROXY_AT = QT_TRANSLATE_NOOP("Doctor", "proxy {address}")
EV_NO_ANSWER_WITHIN = QT_TRANSLATE_NOOP("Doctor", "no answer within {seconds} s")
EV_CONNECTION_REFUSED = QT_TRANSLATE_NOOP("Doctor", "connection refused (nothing listens there)")
EV_NOT_A_PROXY_URL = QT_TRANSLATE_NOOP("Doctor", "not a proxy URL like http://host:port")
SKIP_PLAIN_HTTP = QT_TRANSLATE_NOOP("Doctor", "plain http: no TLS")
SKIP_PLAIN_HTTP_KEY_UNENCRYPTED = QT_TRANSLATE_NOOP(
    "Doctor", " (the key travels unencrypted to a non-local host)"
)
SKIP_TLS_THROUGH_PROXY = QT_TRANSLATE_NOOP(
    "Doctor", "TLS runs through the proxy (CONNECT); the HTTP checks cover it"
)
EV_HOST_IS_IP = QT_TRANSLATE_NOOP("Doctor", "{host} is an IP address: nothing to look up")
EV_LOOKING_UP = QT_TRANSLATE_NOOP("Doctor", "looking up {host}: {problem}")
SKIP_HOST_DOES_NOT_RESOLVE = QT_TRANSLATE_NOOP("Doctor", "{host} does not resolve (dns)")
EV_RESOLVED = QT_TRANSLATE_NOOP("Doctor", "{host} → {addresses} ({ms} ms)")
EV_CONNECTED = QT_TRANSLATE_NOOP("Doctor", "connected to {who}{ip} in {ms} ms")
EV_CONNECT_FAILED = QT_TRANSLATE_NOOP("Doctor", "connect to {who}{ip}: {why}")
SKIP_NO_TCP = QT_TRANSLATE_NOOP("Doctor", "no TCP connection to {who} (tcp)")
EV_TLS_HANDSHAKE_FAILED = QT_TRANSLATE_NOOP("Doctor", "TLS handshake with {host}:{port}: {message}")
SKIP_TLS_FAILED = QT_TRANSLATE_NOOP("Doctor", "the TLS handshake failed (tls)")
EV_TLS_DONE = QT_TRANSLATE_NOOP("Doctor", "{version} with {host} in {ms} ms")
EV_CERTIFICATE_FOR = QT_TRANSLATE_NOOP("Doctor", "; certificate for {name}")
EV_VALID_UNTIL = QT_TRANSLATE_NOOP("Doctor", ", valid until {date}")
EV_VERIFICATION_OFF = QT_TRANSLATE_NOOP(
    "Doctor",
    "; WARNING: certificate verification is OFF for this provider (anyone on the path can read "
    "the key)",
)
EV_NO_HTTP_CLIENT = QT_TRANSLATE_NOOP("Doctor", "cannot build an HTTP client: {error}")
SKIP_NO_HTTP_CLIENT = QT_TRANSLATE_NOOP("Doctor", "no HTTP client (models_path)")
SKIP_NOT_PROTOCOL = QT_TRANSLATE_NOOP(
    "Doctor", "the base URL does not speak {protocol} (models_path)"
)
EV_PATHS_V1_ADDED = QT_TRANSLATE_NOOP(
    "Doctor", "{base}: {at_base}; with /v1 added ({alt}): {at_alt}"
)
EV_PATHS_V1_REMOVED = QT_TRANSLATE_NOOP(
    "Doctor", "{base}: {at_base}; with /v1 removed ({alt}): {at_alt}"
)
SKIP_NO_HTTP_ANSWER = QT_TRANSLATE_NOOP("Doctor", "no HTTP answer (models_path)")
SKIP_NO_API_PATH = QT_TRANSLATE_NOOP("Doctor", "no API path answers (models_path)")
SKIP_WHICH_PATH = QT_TRANSLATE_NOOP(
    "Doctor", "cannot tell which path is right ({statuses}); {evidence}"
)
SKIP_KEY_REFUSED = QT_TRANSLATE_NOOP("Doctor", "the server refused the key (auth)")
EV_NO_KEY_SENT = QT_TRANSLATE_NOOP("Doctor", "no key sent")
EV_KEY_SENT_BEARER = QT_TRANSLATE_NOOP("Doctor", "key sent as a Bearer token")
EV_KEY_SENT_IN_HEADER = QT_TRANSLATE_NOOP("Doctor", "key sent in the {header} header")
EV_WITH_VERSION = QT_TRANSLATE_NOOP("Doctor", " (with anthropic-version: {version})")
EV_KEY_FROM = QT_TRANSLATE_NOOP("Doctor", " (key from {source})")
EV_KEY_NOT_JUDGED_WITHOUT_VERSION = QT_TRANSLATE_NOOP(
    "Doctor",
    "; {request} → HTTP 400: {message}: the key cannot be judged without the version header",
)
EV_ANSWER_NOT_JUDGED = QT_TRANSLATE_NOOP("Doctor", "; the server's answer could not be judged")
EV_NO_JSON_ANSWER = QT_TRANSLATE_NOOP("Doctor", "; no JSON answer to judge the key by")
EV_SEEN = QT_TRANSLATE_NOOP("Doctor", "; {seen}")
EV_NOT_REFUSED = QT_TRANSLATE_NOOP("Doctor", "; {seen}: not refused")
EV_CANNOT_TELL_KEY = QT_TRANSLATE_NOOP("Doctor", "; {seen}: cannot tell whether the key is good")
EV_NEEDS_NO_KEY = QT_TRANSLATE_NOOP("Doctor", "; {seen}: the server needs no key")
EV_CHECKED_CLEANED = QT_TRANSLATE_NOOP(
    "Doctor", " (checked with the whitespace and quotes removed)"
)
EV_ANSWERS_OF_GATEWAY = QT_TRANSLATE_NOOP("Doctor", "; the answers are those of {gateway}")
GW_LITELLM = QT_TRANSLATE_NOOP("Doctor", "a LiteLLM proxy")
GW_AZURE_APIM = QT_TRANSLATE_NOOP("Doctor", "Azure (API Management)")
GW_BY_HEADER = QT_TRANSLATE_NOOP("Doctor", "{gateway} (header {header})")
GW_LITELLM_ERROR = QT_TRANSLATE_NOOP("Doctor", "a LiteLLM proxy (error '{error}')")
GW_API_ERROR = QT_TRANSLATE_NOOP("Doctor", "a {name} gateway (error type '{kind}')")
GW_BY_HOST = QT_TRANSLATE_NOOP("Doctor", "{gateway} (host {host})")
SKIP_MODELS_NO_LIST = QT_TRANSLATE_NOOP(
    "Doctor", "the server has no /models list; the streamed request tells whether the model exists"
)
SKIP_MODELS_NOT_A_LIST = QT_TRANSLATE_NOOP(
    "Doctor", "GET /models did not answer with a list ({outcome})"
)
EV_MODELS_LISTED = QT_TRANSLATE_NOOP("Doctor", "{count} model(s) listed: {listed} (no --model)")
EV_MODEL_LISTED = QT_TRANSLATE_NOOP("Doctor", "'{model}' is listed ({count} models)")
SKIP_MODEL_LIST_HAS_MORE = QT_TRANSLATE_NOOP(
    "Doctor",
    "'{model}' is not among the first {count} listed, and the list has more; the streamed "
    "request tells",
)
EV_MODEL_NOT_LISTED = QT_TRANSLATE_NOOP(
    "Doctor", "'{model}' is not among the {count} listed: {listed}"
)
SKIP_NO_CLIENT = QT_TRANSLATE_NOOP("Doctor", "no client (stream)")
EV_NO_CLIENT = QT_TRANSLATE_NOOP("Doctor", "cannot build the client: {error}")
SKIP_NO_MODEL_TO_ASK = QT_TRANSLATE_NOOP("Doctor", "no model to ask: pass --model M")
EV_STREAM_MODEL = QT_TRANSLATE_NOOP("Doctor", "model '{model}'")
EV_FIRST_LISTED = QT_TRANSLATE_NOOP("Doctor", " (the first listed; pass --model to choose)")
EV_UNLISTED_BUT_SERVED = QT_TRANSLATE_NOOP(
    "Doctor",
    "'{model}' is not listed, but served: the streamed request got an answer (the server lists "
    "{count}: {listed}; some servers list only loaded models)",
)
EV_LENGTH_EXPECTED = QT_TRANSLATE_NOOP(
    "Doctor",
    " (expected with max_tokens={tokens}; in a run it means max_tokens cut the answer)",
)
EV_FIRST_CHUNK_ROLE_ONLY = QT_TRANSLATE_NOOP("Doctor", "first chunk role-only")
EV_FIRST_EVENT_BEFORE_TEXT = QT_TRANSLATE_NOOP("Doctor", "first event before the text")
YES = QT_TRANSLATE_NOOP("Doctor", "yes")
NO = QT_TRANSLATE_NOOP("Doctor", "no")
EV_STREAM_ANSWERED = QT_TRANSLATE_NOOP(
    "Doctor",
    "{head}; HTTP {status}; TTFT {ttft} ms; {first}: {role_only}; usage: {usage}; "
    "reasoning: {reasoning}; finish_reason: {finish}",
)
EV_USAGE_ABSENT = QT_TRANSLATE_NOOP("Doctor", "absent (token counts will be estimated)")
EV_USAGE_MADE_UP = QT_TRANSLATE_NOOP(
    "Doctor",
    "present but made up by the gateway (prompt {prompt}, completion {completion}, yet {events} "
    "text events came: the usage was counted by something other than the model's tokenizer, "
    "so runs mark it usage_suspect and time decoding by the events)",
)
EV_USAGE_PRESENT = QT_TRANSLATE_NOOP("Doctor", "present (prompt {prompt}, completion {completion})")
EV_STREAM_FAILED = QT_TRANSLATE_NOOP("Doctor", "{head}; {what}")
EV_WE_SENT_VERSION = QT_TRANSLATE_NOOP("Doctor", " (we sent anthropic-version: {version})")
SKIP_BASELINE_NOTHING_TO_TIME = QT_TRANSLATE_NOOP(
    "Doctor",
    "no streamed request answered and GET /models does not answer 200: nothing to time",
)
EV_TIMED_STREAMS = QT_TRANSLATE_NOOP("Doctor", "streamed requests to '{model}'")
EV_TIMED_STREAMS_AND_MODELS = QT_TRANSLATE_NOOP(
    "Doctor", "streamed requests to '{model}' and GET /models"
)
EV_TIMING_FAILED = QT_TRANSLATE_NOOP("Doctor", "{timed} failed while timing {count} round trips")
EV_BASELINE_STREAMS = QT_TRANSLATE_NOOP(
    "Doctor",
    "median of {count} streamed requests to '{model}' (max_tokens 1, sent to first event): "
    "{ms} ms (method: {method}, as runs measure it)",
)
EV_BASELINE_MODELS = QT_TRANSLATE_NOOP(
    "Doctor", "median of {count} GET /models: {ms} ms (method: models; {why})"
)
EV_PATH_GAVE_NO_EVENT = QT_TRANSLATE_NOOP("Doctor", "the {protocol} path gave no event")
EV_NO_MODEL_ANSWERED = QT_TRANSLATE_NOOP("Doctor", "no model answered")
SKIP_NO_HTTP_ANSWER_TO_LOOK_AT = QT_TRANSLATE_NOOP("Doctor", "no HTTP answer to look at")
EV_NO_HTML_PAGE = QT_TRANSLATE_NOOP("Doctor", "no HTML page in {count} answer(s)")
EV_HTML_PAGE = QT_TRANSLATE_NOOP("Doctor", "{request} → HTTP {status} {content_type}")
EV_NO_CONTENT_TYPE = QT_TRANSLATE_NOOP("Doctor", "no content-type")
EV_HTML_TITLE = QT_TRANSLATE_NOOP("Doctor", ", title '{title}'")
EV_HTML_STARTS = QT_TRANSLATE_NOOP("Doctor", ", starts '{start}'")
EV_HTML_SERVER = QT_TRANSLATE_NOOP("Doctor", ", server {server}")
EV_HTML_ANSWERS_IN_ALL = QT_TRANSLATE_NOOP("Doctor", "{count} HTML answers in all")
EV_STREAMED_REQUEST = QT_TRANSLATE_NOOP("Doctor", "streamed request → {message}")
EV_NO_RATE_LIMIT = QT_TRANSLATE_NOOP("Doctor", "no 429, 402 or quota answer in {count} answer(s)")
EV_ANSWERS_LIKE_THIS = QT_TRANSLATE_NOOP("Doctor", "{count} answers like this")
EV_RETRY_AFTER_SECONDS = QT_TRANSLATE_NOOP("Doctor", "; Retry-After: {seconds} s")
EV_NO_RETRY_AFTER = QT_TRANSLATE_NOOP("Doctor", "no Retry-After header")
