"""The words that name a secret, in many languages, and the tests that tell a credential from a
word.

Stdlib only and import-cheap, since the recording hook loads
it. Every word is a lower-case literal: the rules find it in the text's case-folded form before they
compile anything, and a rule's pattern is built from the words the text holds.
"""

from __future__ import annotations

from .lines import LINE_REACH, marks_before

# a SIM's unblocking key and one-time codes, English words (in ``PASSWORD_WORDS`` and ``ENGLISH``)
_CODES = (
    "puk",
    "puk2",
    "puk code",
    "verification code",
    "verification codes",
    "one-time code",
    "one time code",
    "one-time passcode",
    "otp",
    "otp code",
    "2fa code",
    "mfa code",
    "totp code",
    "login code",
    "sign-in code",
    "confirmation code",
)

# Words for a password. ASCII ones first; "pass", "pw" and "psk" only count inside a name or a flag
# (db_pass=, --pass), never in prose, where "pass" is an ordinary word.
PASSWORD_WORDS: tuple[str, ...] = (
    "password",
    "passwd",
    "passwort",
    "passphrase",
    "kennwort",
    "contraseña",
    "contrasena",
    "contrasenya",
    "contrasinal",
    "senha",
    "palavra-passe",
    "palavra passe",
    "wachtwoord",
    "wagwoord",
    "lösenord",
    "losenord",
    "adgangskode",
    "adgangskoden",
    "kodeord",
    "passord",
    "passordet",
    "lösenordet",
    "salasana",
    "salasõna",
    "hasło",
    "haslo",
    "hasł",
    "heslo",
    "hesl",
    "geslo",
    "lozinka",
    "lozink",
    "jelszó",
    "jelszo",
    "jelsz",
    "şifre",
    "sifre",
    "parola",
    "parolă",
    "parool",
    "parole",
    "slaptažodis",
    "slaptazodis",
    # its stem: slaptažodį, slaptažodžio
    "slaptažod",
    "slaptazod",
    "lykilorð",
    "fjalëkalim",
    "cyfrinair",
    "pasahitza",
    "nenosiri",
    "mdp",
    "motdepasse",
    "mot_de_passe",
    "mot de passe",
    "parola d'ordine",
    "kata sandi",
    "kata laluan",
    "mật khẩu",
    "mat khau",
    "matkhau",
    "clave de acceso",
    "código de acceso",
    "codigo de acceso",
    "kod dostępu",
    "kod dostepu",
    "clave",
    "passcode",
    "pass code",
    "pass phrase",
    "secret phrase",
    "access code",
    "recovery code",
    "backup code",
    # a recovery or backup code in Chinese, Japanese, Korean
    *("恢复码", "恢復碼", "救援码", "救援碼", "备用码", "備用碼", "复原码", "復原碼", "备份码"),
    *("備份碼", "リカバリーコード", "バックアップコード", "復旧コード", "복구 코드", "복구코드"),
    *("백업 코드", "백업코드"),
    "zugangscode",
    "zugangsdaten",
    "κωδικός πρόσβασης",
    "κωδικος προσβασης",
    "пароль",
    "парол",
    "парола",
    "лозинка",
    "гасло",
    "κωδικός",
    "κωδικος",
    # its other cases: τον κωδικό, του κωδικού
    "κωδικό",
    "κωδικού",
    "κωδικοί",
    "συνθηματικό",
    "密码",
    "密碼",
    "口令",
    "パスワード",
    "暗証番号",
    "비밀번호",
    "패스워드",
    "암호",
    "סיסמה",
    "סיסמא",
    "كلمة المرور",
    "كلمة السر",
    "رمز عبور",
    "گذرواژه",
    "पासवर्ड",
    "পাসওয়ার্ড",
    "รหัสผ่าน",
    "գաղտնաբառ",
    "პაროლი",
    "pre-shared key",
    "pre-shared-key",
    "pre_shared_key",
    "preshared key",
    "psksecret",
    "šifra",
    "sifra",
    "šifru",
    "шифра",
    "шифру",
    "neno la siri",
    "nywila",
    "sandi",
    "kontrasenya",
    "şifrə",
    "pasfhocal",
    "phasfhocal",
    "bpasfhocal",
    "tunnussana",
    "ijambobanga",
    "ijambo banga",
    "liloba ya sekele",
    "ekigambo eky'ekyama",
    "ekigambo ekyekyama",
    "ahintasɛm",
    "iphasiwedi",
    "kalmar sirri",
    "mật mã",
    "비번",
    "合言葉",
    "パスコード",
    "کلمه عبور",
    "پسورد",
    "پاس ورڈ",
    "الرقم السري",
    "கடவுச்சொல்",
    "பாஸ்வேர்டு",
    "పాస్‌వర్డ్",
    "పాస్వర్డ్",
    "संकेतशब्द",
    "कूटशब्द",
    "የይለፍ ቃል",
    # the definite and possessive forms change the last syllable, not a suffix
    "የይለፍ ቃሉ",
    "የይለፍ ቃልህ",
    "የይለፍ ቃልሽ",
    "የይለፍ ቃልዎ",
    "စကားဝှက်",
    "ពាក្យសម្ងាត់",
    "ລະຫັດຜ່ານ",
    "මුරපදය",
    "нууц үг",
    "құпия сөз",
    "құпиясөз",
    "parol",
    "pasvorto",
    "passwuert",
    "wachtwurd",
    "tenimiafina",
    "erayga sirta",
    "furaha sirta",
    "aṣínà",
    "aṣina",
    "ọrọ igbaniwọle",
    "okwuntughe",
    "kupuhipa",
    "modpas",
    "facal-faire",
    "tembung sandhi",
    "kecap konci",
    "phasewete",
    "pasiwedhi",
    "mawu achinsinsi",
    "ijambo ry'ibanga",
    "пароли",
    "сырсөз",
    "серсүз",
    "рамз",
    "پټنوم",
    "وشەی نهێنی",
    "પાસવર્ડ",
    "ਪਾਸਵਰਡ",
    "ಪಾಸ್‌ವರ್ಡ್",
    "ಪಾಸ್ವರ್ಡ್",
    "പാസ്‌വേഡ്",
    "പാസ്വേഡ്",
    "ପାସୱାର୍ଡ",
    "পাসওয়ার্ড",
    "pin",
    # a bank's mobile and telephone PINs (India's MPIN, TPIN; "UPI PIN" holds "pin")
    "mpin",
    "tpin",
    "pin code",
    "pin-code",
    "mã pin",
    "código pin",
    "codice pin",
    # a SIM's unblocking key, a one-time code sent to log in, a security question's answer:
    # "the PUK is …", "your verification code is …", "Bestätigungscode lautet …", "memorable word: …"
    *_CODES,
    "bestätigungscode",
    "bestaetigungscode",
    "verifizierungscode",
    "einmalcode",
    "einmalpasswort",
    "code de vérification",
    "code de verification",
    "código de verificación",
    "codigo de verificacion",
    "código de verificação",
    "codice di verifica",
    "verificatiecode",
    "код подтверждения",
    "验证码",
    "認証コード",
    "인증번호",
    "security answer",
    "secret answer",
    "memorable word",
    "memorable answer",
    "puk-code",
    "puk-kode",
    "code puk",
    "código puk",
    "kod weryfikacyjny",
    "kod jednorazowy",
    "doğrulama kodu",
    "doğrulama kod",
    "verifieringskod",
    "engångskod",
    "bekræftelseskode",
    "vahvistuskoodi",
    "bevestigingscode",
    "одноразовый код",
    "код для входа",
    "código de un solo uso",
    "codice monouso",
    "code à usage unique",
    # a passphrase's name split in two, a code that opens something, a network's key, in more
    # languages and scripts: "pass_phrase=", "Geheimzahl", "code d'accès", "كلمة مرور", "סיסמת"
    "pass_phrase",
    "pass-phrase",
    "geheimzahl",
    "geheimcode",
    "geheimwort",
    "netzwerkschlüssel",
    "wlan-schlüssel",
    "wlan-passwort",
    "code secret",
    "code d'accès",
    "code d'acces",
    "code confidentiel",
    "clé de sécurité",
    "cle de securite",
    "codice di accesso",
    "codice d'accesso",
    "codice segreto",
    "chiave di rete",
    "código secreto",
    "codigo secreto",
    "clave de red",
    "código de acesso",
    "codigo de acesso",
    "chave de segurança",
    "toegangscode",
    "pincode",
    "netwerksleutel",
    "pinkode",
    "pin-kode",
    "tilgangskode",
    "åtkomstkod",
    "pinkod",
    "pin-kod",
    "tunnusluku",
    "pääsykoodi",
    "pin-koodi",
    "pin-kood",
    "pääsukood",
    "kod pin",
    "přístupový kód",
    "pristupovy kod",
    "prístupový kód",
    "hozzáférési kód",
    "cod de acces",
    "cod pin",
    "erişim kodu",
    "pin kodu",
    "piekļuves kods",
    "prieigos kodas",
    "pristupni kod",
    "aðgangsorð",
    "kelma tad-dħul",
    "kelma tad-dhul",
    "kelma sigrieta",
    "loyniorð",
    "ʻōlelo huna",
    "ōlelo huna",
    "olelo huna",
    "ger-tremen",
    "parolla d'ordine",
    "senhal",
    "borînpeyv",
    "şîfre",
    "açar söz",
    "kode akses",
    "kod akses",
    "kata kunci",
    "mã truy cập",
    "mã bí mật",
    "код доступа",
    "код доступу",
    "код за достъп",
    "приступни код",
    "пин-код",
    "пин код",
    "пін-код",
    "секретный код",
    "секретний код",
    "кодовое слово",
    "μυστικός κωδικός",
    "საიდუმლო კოდი",
    "գաղտնագիր",
    "קוד גישה",
    "סיסמת",
    "كلمة مرور",
    "رمز المرور",
    "رمز الدخول",
    "الرمز السري",
    "رقم سري",
    "رمز",
    "پارول",
    "مەخپىي نومۇر",
    "پاسورڊ",
    "پن کوڈ",
    "ޕާސްވޯޑް",
    "መሕለፊ ቃል",
    "ቃል ምስጢር",
    "igama lokugqitha",
    "upu lilo",
    "upu faalilolilo",
    "kecap aksés",
    "kecap akses",
    "huaʻōlelo huna",
    "hua'ōlelo huna",
    "huaolelo huna",
    "yaykuna simi",
    "pakasqa simi",
    "পাছৱৰ্ড",
    "গোপন কোড",
    "परवलीचा शब्द",
    "गुप्त कोड",
    "पिन कोड",
    # a PIN in Hindi alone ("ATM पिन 2580"): digits only (prose._PIN_CODES); the same loanword in
    # Bengali, Gujarati, Gurmukhi, Odia, Telugu, Kannada and Georgian
    *("पिन", "পিন", "પિન", "ਪਿੰਨ", "ਪਿਨ", "ପିନ", "పిన్", "ಪಿನ್", "პინ"),
    "གསང་ཚིག",
    "གསང་གྲངས",
    "พาสเวิร์ด",
    "รหัส",
    "访问码",
    "提取码",
    "通行码",
    "密匙",
    "パスフレーズ",
    "アクセスコード",
    "暗証コード",
    "접속 코드",
    "액세스 코드",
    # a code that opens a door, a gate, an alarm or a safe, or a card's security code; the
    # word "code" alone stays (error code, status code, exit code)
    "door code",
    "gate code",
    "alarm code",
    "keypad code",
    "entry code",
    "lock code",
    "garage code",
    "intercom code",
    "buzzer code",
    "lockbox code",
    "safe code",
    "safe combination",
    "lock combination",
    "security code",
    "cvv",
    "cvv2",
    "cvc",
    "cvc2",
    # a card's security code in Chinese, Japanese and Korean (CVV, CVC)
    "安全码",
    "安全碼",
    "セキュリティコード",
    "보안코드",
    "türcode",
    "torcode",
    "alarmcode",
    "tresorcode",
    "schlosscode",
    "digicode",
    "code de la porte",
    "code porte",
    "code d'entrée",
    "code d'entree",
    "code de l'alarme",
    "código de la puerta",
    "codigo de la puerta",
    "código del portón",
    "código de la alarma",
    "código da porta",
    "codigo da porta",
    "código do alarme",
    "codice del portone",
    "codice della porta",
    "codice dell'allarme",
    "deurcode",
    "poortcode",
    "alarmkode",
    "dørkode",
    "portkod",
    "larmkod",
    "ovikoodi",
    "kod do drzwi",
    "kod do bramy",
    "kod alarmu",
    "kód od dveří",
    "kapı şifresi",
    "alarm şifresi",
    "код от домофона",
    "код домофона",
    "код от двери",
    "код двери",
    "код сигнализации",
    "код від домофону",
    "門禁密碼",
    "门禁密码",
    "门禁码",
    "ドアの暗証番号",
    "도어락 비밀번호",
    "현관 비밀번호",
    "도어락 번호",
    "현관 번호",
    "금고 번호",
    # more languages: Yiddish, Guarani, Tok Pisin and Bislama, Latin, Samoan, Fijian, Tswana,
    # Oromo, Hmong, Northern Sami, Romansh, Interlingua, Ido, Scots, Papiamento, Sanskrit,
    # Low German, Luxembourgish's plural, Cornish, Manx
    "פּאַראָל",
    "פאראל",
    "ñe'ẽñemi",
    "ñeʼẽñemi",
    "ñe’ẽñemi",
    "ñe'ẽ ñemi",
    "paswot",
    "pasword",
    "tessera",
    "verbum arcanum",
    "upu fa'alilolilo",
    "upu faʻalilolilo",
    "vosa vuni",
    "lefoko la sephiri",
    "jecha darbii",
    "jecha icciitii",
    "lo lus zais",
    "lo lus nkag",
    "beassansátni",
    "beassansatni",
    "pled-clav",
    "pled da clav",
    "contrasigno",
    "pasovorto",
    "passwird",
    "kontraseña",
    "kontrasenja",
    "गुप्तशब्द",
    "passwoort",
    "ger-tremenn",
    "fockle-follit",
)
# Words for a key or a code that name a password only beside what they open: "la chiave del wifi
# è …", "kod do sejfu to …", "le code wifi : …", "pass wifi là …", "הקוד של הכספת הוא …"
# (``prose``: a ``QUALIFIERS`` word right before, or among the first words after, the word).
KEY_CODE_WORDS = (
    "code",
    "codes",
    "kod",
    "kód",
    "koodi",
    "kood",
    "kods",
    "kodas",
    "codice",
    "código",
    "codigo",
    "codi",
    "chiave",
    "chave",
    "clé",
    "cle",
    "klucz",
    "schlüssel",
    "schluessel",
    "sleutel",
    "nyckel",
    "nøkkel",
    "nøgle",
    "kulcs",
    "cheie",
    "avain",
    "võti",
    "atslēga",
    "raktas",
    "ključ",
    "kljuc",
    "ключ",
    "код",
    "κλειδί",
    "κωδικ",
    "مفتاح",
    "كود",
    "קוד",
    "מפתח",
    "キー",
    "コード",
    "钥匙",
    "代码",
    "코드",
    "키",
    "anahtar",
    "kodu",
    "mã",
    "khóa",
    "kunci",
    "susi",
    "ufunguo",
    "pass",
    # a lock's combination
    "combination",
    "combo",
    "combinaison",
    "combinación",
    "combinacion",
    "combinação",
    "combinazione",
    "kombination",
    "kombinasjon",
    "kombinace",
    "kombinacja",
)
# What a key or a code opens (a prefix of the word: "sejfu", "домофона", "הכספת").
QUALIFIERS = (
    "padlock",
    "lock",
    "locker",
    "keysafe",
    "cadenas",
    "casier",
    "candado",
    "taquilla",
    "lucchetto",
    "armadietto",
    "vorhängeschloss",
    "spind",
    "kłódk",
    "wifi",
    "wi-fi",
    "wlan",
    "wireless",
    "router",
    "network",
    "netzwerk",
    "réseau",
    "reseau",
    "rede",
    "rete",
    "sieć",
    "sieci",
    "síť",
    "sítě",
    "mạng",
    "jaringan",
    "mtandao",
    "modem",
    "hotspot",
    "safe",
    "sejf",
    "cassaforte",
    "coffre",
    "tresor",
    "cofre",
    "kluis",
    "kassaskåp",
    "pengeskab",
    "door",
    "porte",
    "porta",
    "portão",
    "puerta",
    "portón",
    "tür",
    "haustür",
    "deur",
    "dörr",
    "dør",
    "drzwi",
    "dveř",
    "ajtó",
    "kapı",
    "alarm",
    "allarme",
    "alarme",
    "alarma",
    "garage",
    "garaje",
    "gate",
    "portail",
    "cancello",
    "brama",
    "bramy",
    "domofon",
    "interphone",
    "citofono",
    "intercom",
    "lockbox",
    "lucchetto",
    "cadenas",
    "candado",
    "zámek",
    "zamek",
    "сейф",
    "двер",
    "домофон",
    "сигнализац",
    "роутер",
    "вайфай",
    "כספת",
    "דלת",
    "אזעקה",
    "ראוטר",
    "خزنة",
    "الخزنة",
    "باب",
    "الباب",
    "راوتر",
    "الواي",
    "金庫",
    "ドア",
    "保险箱",
    "保险柜",
    "门禁",
    "路由器",
    "금고",
    "도어",
    "현관",
    "와이파이",
    "két",
    "cửa",
    "caja",
    "larm",
    "lås",
    "lock",
)
NAME_ONLY_WORDS = ("pass", "pwd", "pw", "psk", "psw", "pword", "pwrd")

# Words for a token, a secret or an API key: a value after them is a credential too.
SECRET_WORDS: tuple[str, ...] = (
    "secret",
    "token",
    "api_key",
    "api-key",
    "apikey",
    "api key",
    "access_key",
    "access-key",
    "accesskey",
    "private_key",
    "private-key",
    "privatekey",
    "account_key",
    "accountkey",
    "signing_key",
    "signingkey",
    "encryption_key",
    "encryptionkey",
    "master_key",
    "masterkey",
    "preshared_key",
    "presharedkey",
    "auth",
    "credential",
    "credentials",
    "creds",
    "erlang_cookie",
    "erlang cookie",
    "setcookie",
    "jeton",
    "geheimnis",
    "segreto",
    "secreto",
    "segredo",
    "clé api",
    "clé d'api",
    "clé secrète",
    "cle secrete",
    "clave secreta",
    "clave de api",
    "clave api",
    "chave secreta",
    "chave de api",
    "chave api",
    "chiave segreta",
    "chiave api",
    "api-schlüssel",
    "api-schluessel",
    "api-sleutel",
    "klucz api",
    "ключ api",
    "api-ключ",
    "токен",
    "секрет",
    "令牌",
    "密钥",
    "秘钥",
    "密鑰",
    # Taiwan's word for a key (備份金鑰, API 金鑰)
    "金鑰",
    "私钥",
    "私鑰",
    "秘密鍵",
    "シークレット",
    "トークン",
    "api키",
    "api 키",
    "토큰",
    "시크릿",
    "비밀 키",
    "비밀키",
    "개인 키",
    "개인키",
    "api密钥",
    "apiキー",
    "api キー",
    "totp",
    "otp seed",
    "recovery key",
    "टोकन",
    "توكن",
    "טוקן",
    "โทเค็น",
    "login details",
    "login info",
    "login credentials",
    "access details",
    "unseal key",
    "root token",
    "dockerconfigjson",
    # sssd's ldap_default_authtok
    "authtok",
    "dockercfg",
)
# Words for a key in general ("cache key", "primary key"): only a random-looking value after them
# counts.
KEY_WORDS: tuple[str, ...] = (
    "key",
    "clé",
    "chave",
    "chiave",
    "schlüssel",
    "schluessel",
    "sleutel",
    "nyckel",
    "nøgle",
    "nøkkel",
    "avain",
    "klucz",
    "klíč",
    "kulcs",
    "anahtar",
    "cheie",
    "kunci",
    "ключ",
    "κλειδί",
    "键",
    "鍵",
    "キー",
    "키",
    "מפתח",
    "مفتاح",
    "कुंजी",
    "pat",
    "encrypt",
    "wif",
    "priv",
    "privkey",
    # a cookie that signs or authenticates (RELEASE_COOKIE=…, a node's cookie): random values only
    "cookie",
)

# What "is" looks like in the languages above, between a password word and its value.
COPULAS = (
    "is",
    # Hebrew's "is" after a masculine noun (הקוד … הוא …)
    "הוא",
    "are",
    "was",
    "ist",
    "sind",
    "lautet",
    "lauten",
    "war",
    "est",
    # French says "is" with its pronoun in speech and chat ("le code du wifi c'est …")
    "c'est",
    "c’est",
    "sont",
    "était",
    "es",
    "son",
    "era",
    "é",
    "são",
    "è",
    "sono",
    "är",
    "er",
    "on",
    "je",
    "jest",
    "to",
    "este",
    "adalah",
    "ialah",
    "là",
    "είναι",
    "это",
    "zijn",
    "היא",
    "هي",
    "هو",
    "คือ",
    # more languages' "is": Latvian, Lithuanian, Esperanto, Welsh, Swahili, Somali, Tagalog,
    # Yoruba, Zulu, Macedonian and Bulgarian, Georgian, Hindi, Nepali, Bengali
    "ir",
    "yra",
    "estas",
    "yw",
    "ni",
    "waa",
    "ay",
    "jẹ",
    "ngu",
    "е",
    "არის",
    "है",
    "हो",
    "হল",
)
# "is" at a clause's end, after the value, in languages that put the verb last ("पासवर्ड ghar1234
# है", "パスワードは sakura2024 です", "şifre kedi1234 dir")
SOV_COPULAS = (
    "है",
    "हो",
    "হয়",
    "হল",
    "ആണ്",
    "છે",
    "ਹੈ",
    "da",
    "است",
    "ہے",
    "です",
    "입니다",
    "이다",
    "dir",
    "dır",
    "է",
    "ದೆ",
)
CJK_COPULAS = ("是", "为", "為", "は", "が", "는", "은", "คือ")

# Words before a hash or an id: a random value after them is not a credential ("token id 3f2a…").
HASH_WORDS = {
    "sha",
    "sha1",
    "sha256",
    "sha512",
    "md5",
    "hash",
    "digest",
    "checksum",
    "commit",
    "fingerprint",
    "rev",
    "revision",
    "build",
    "uuid",
    "guid",
    "id",
    "ids",
    "request",
    "trace",
    "span",
    "object",
    "blob",
    "tree",
    "etag",
    "version",
    "ref",
    "crc",
    "public",
    "pub",
    "kid",
    "jti",
    "nonce",
    # HTTP Digest's client and server nonces, sent in clear with every request
    "cnonce",
    "snonce",
    "salt",
}

# Values that say something about a secret without being one.
NOT_SECRETS = {
    "none",
    "null",
    "nil",
    "true",
    "false",
    "yes",
    "no",
    "on",
    "off",
    "ok",
    "expired",
    "bearer",
    "basic",
    "digest",
    "undefined",
    "empty",
    "required",
    "optional",
    "redacted",
    "hidden",
    "unset",
    "missing",
    "invalid",
    # a value that says it is the wrong one, as a test that expects a refusal gives it
    "wrong",
    "incorrect",
    "bad",
    "bogus",
    "wrongpassword",
    "wrong-password",
    "wrong_password",
    "badpassword",
    "bad-password",
    "bad_password",
    "incorrect-password",
    "incorrect_password",
    "invalid-password",
    "invalid_password",
    "changeme",
    "default",
    "unknown",
    "n/a",
    "tbd",
    "todo",
    "xxx",
    "secret",
    "password",
    "token",
    "stdin",
    "prompt",
    "ask",
}
# English words of the closed classes (articles, pronouns, prepositions, conjunctions, auxiliary
# verbs, adverbs of order): in the place of a tool's password they are the sentence going on
# ("run vault login then deploy", "bw unlock with your master password"), never the password
FUNCTION_WORDS = frozenset(
    """
    a an the this that these those it its he she we they you your yours our his her their them us
    me my i and or but nor so yet then than if when while once until unless because since though
    although whether before after again first next later now also too only just still already
    soon here there where with without within into onto from to of in on at by for about as via
    per through over under between against during across like is are was were be been being am
    do does did done has have had having will would shall should can could may might must not
    never always also each every any all some both either neither instead anyway please
    """.split()
)
_FILE_MAGIC = (
    "iVBORw0KGgo",
    "/9j/",
    "R0lGOD",
    "UklGR",
    "PHN2Zy",
    "PD94bW",
    "JVBERi",
    "UEsDB",
    "H4sI",
    "Qk0",
    "SUkq",
    "AAAAIGZ0eXA",
    "AAAAHGZ0eXA",
    "AAAAGGZ0eXA",
    "T2dnU",
    "GkXfo",
    "AAAAB3NzaC1",
    "AAAAC3NzaC1",
    # images, documents, archives, SSH public keys
    "AAAAE2VjZHNh",
)
_REFERENCE_PREFIXES = (
    "$",
    "%",
    "{{",
    "<",
    "[REDACTED",
    "env:",
    "file:",
    "fd:",
    "vault:",
    "op://",
    "secret://",
    "ssm:",
    "arn:",
    # the rest of a URL after its scheme's colon (otpauth://totp/…)
    "//",
    "keychain:",
    "sops:",
    # Azure App Service's and Functions' references to a vault or App Configuration, and vals'
    # (helmfile's) ref+vault://, ref+awssecrets://…
    "@Microsoft.KeyVault(",
    "@Microsoft.AppConfiguration(",
    "ref+",
    "!vault",
    "ENC[",
    "!secret",
    "`",
    # a regular expression's "anything" (sed 's/password: .*/…/')
    ".*",
    ".+",
)


def fold(text: str) -> str:
    """``text`` as ``(?i)`` patterns see it: lower case, with the letters that match another under
    ``re.IGNORECASE`` ("ſ" and "s", "ı" and "i", "ς" and "σ") made one, so a word found here is what
    a case-blind pattern can match, in any script."""
    lowered = text.lower()
    return lowered if lowered.isascii() else lowered.translate(_FOLD)


# From re._casefix (tests/test_secrets.py checks the table against it): each letter that
# re.IGNORECASE matches with a different lower-case letter, mapped to that letter; U+0307 is what
# "İ".lower() adds.
_FOLD = str.maketrans(
    {
        "ı": "i",
        "ſ": "s",
        "µ": "μ",
        "\u0345": "ι",
        "\u1fbe": "ι",
        "ϐ": "β",
        "ϵ": "ε",
        "ϑ": "θ",
        "ϰ": "κ",
        "ϖ": "π",
        "ϱ": "ρ",
        "ς": "σ",
        "ϕ": "φ",
        "ᲀ": "в",
        "ᲁ": "д",
        "ᲂ": "о",
        "ᲃ": "с",
        "ᲄ": "т",
        "ᲅ": "т",
        "ᲆ": "ъ",
        "ᲇ": "ѣ",
        "ᲈ": "ꙋ",
        "ẛ": "ṡ",
        "\u1fd3": "\u0390",
        "\u1fe3": "\u03b0",
        "ﬅ": "ﬆ",
        "\u0307": None,
    }
)


def word_pattern(word: str, bounded: bool = True, scripts: bool = False) -> str:
    """A regular expression for ``word``: spaces match any run of blanks and, if ``bounded``, a word
    in a script that separates words by spaces must not be part of a longer word ("token" is not in
    "tokenizer"). Inside a name (``SharedAccessKey``) words are not bounded. With ``scripts`` (a
    text that holds letters past Cyrillic), a letter of another script beside a Latin word is no
    part of it: Chinese, Japanese and Korean write one against their own ("银行卡PIN是…")."""
    import re

    body = re.escape(word).replace("\\ ", "[ \\t]+")
    # ssh_pass, SSHPASS, --pass, storepass; not bypass or compass
    if word == "pass":
        return (
            "(?:(?<![a-z])|(?<=ssh)|(?<=db)|(?<=root)|(?<=admin)|(?<=user)|(?<=smtp)|(?<=ftp)|(?<=mail)"
            "|(?<=redis)|(?<=store)|(?<=key)|(?<=trust)|(?<=proxy)|(?<=bind)|(?<=rpc)|(?<=vnc)|(?<=sql)"
            # redis' requirepass
            "|(?<=require))pass"
        )
    if not bounded:
        return body
    # not inside DB_PASSWORD either: that is a name. (A class of the other scripts' letters, CJK's
    # ranges written out, took 10 ms to compile for each word: one range past Cyrillic instead.)
    left = ("(?:(?<!\\w)|(?<=[^\\x00-\\u052f]))" if scripts else "(?<!\\w)") * (word[0] < "\u0530")
    # An English word ends where it ends ("token" is not in "tokenizer"); the others take endings
    # (şifresi, salasanasi, hasła, паролем, Passwortes), so they are stems.
    right = ("(?:(?!\\w)|(?=[^\\x00-\\u052f]))" if scripts else "(?!\\w)") * (word in ENGLISH)
    return left + body + right


ENGLISH = frozenset(
    (
        *_CODES,
        "security answer",
        "secret answer",
        "memorable word",
        "memorable answer",
        "password",
        "passwd",
        "passphrase",
        "passcode",
        "pass code",
        "pass phrase",
        "secret phrase",
        "access code",
        "recovery code",
        "backup code",
        "pass",
        "pwd",
        "pw",
        "psk",
        "secret",
        "token",
        "api_key",
        "api-key",
        "apikey",
        "api key",
        "access_key",
        "access-key",
        "accesskey",
        "private_key",
        "private-key",
        "privatekey",
        "account_key",
        "accountkey",
        "signing_key",
        "signingkey",
        "encryption_key",
        "encryptionkey",
        "master_key",
        "masterkey",
        "preshared_key",
        "presharedkey",
        "auth",
        "credential",
        "credentials",
        "creds",
        "key",
        "pat",
        "totp",
        "otp seed",
        "recovery key",
        "unseal key",
        "root token",
        "mdp",
        "seed phrase",
        "recovery phrase",
        "mnemonic",
        "seed words",
        "secret recovery phrase",
        "dockerconfigjson",
        "dockercfg",
        "pre-shared key",
        "pre-shared-key",
        "pre_shared_key",
        "preshared key",
        "psksecret",
        "pin",
        "mpin",
        "tpin",
        "pin code",
        "pin-code",
        "erlang_cookie",
        "erlang cookie",
        "setcookie",
        "encrypt",
        "wif",
        "priv",
        "privkey",
        "cookie",
    )
)


# Words that are also parts of everyday words and names (KeyError, path, passed, author, pwd): they
# count only where a value follows them, which ``weak_gate`` checks in Python, so that an error that
# merely mentions them costs no regular expression.
WEAK = frozenset(("key", "pat", "pass", "auth", "pw", "pwd", "psk", "encrypt", "wif", "priv"))
_SUFFIXES = (
    "_id",
    "-id",
    ".id",
    "id",
    "_value",
    "value",
    "_data",
    "-data",
    "data",
    "_b64",
    "b64",
    "_base64",
    "_str",
    "_string",
    "_plain",
    "_text",
    "_txt",
    "_enc",
    "_encrypted",
    "s",
)


def weak_gate(folded: str, words: tuple[str, ...]) -> bool:
    """Whether ``folded`` can hold a secret after one of ``words``: yes if it holds a word that is
    not weak; for a weak word, only if it ends a name followed by a separator (``KEY=``,
    ``api.key:``, ``client-key-data:``, not ``KeyError:``) or a long token follows it within a few
    words."""
    present = [w for w in words if w in folded]
    if any(w not in WEAK for w in present):
        return True
    for word in present:
        start = folded.find(word)
        while start >= 0:
            if _value_follows(folded, start + len(word)):
                return True
            start = folded.find(word, start + 1)
    return False


def _value_follows(folded: str, end: int) -> bool:
    rest = folded[end : end + 80]
    for suffix in _SUFFIXES:
        if rest.startswith(suffix):
            rest = rest[len(suffix) :]
            break
    rest = rest.lstrip("0123456789").lstrip("\"'").lstrip(" \t")
    if rest[:1] in ("=", ":", "：", ">") or rest.startswith(("=>", "is ")):
        return True
    tokens = rest.replace('"', " ").replace("'", " ").split()
    # a value among the next few words: a flag's or a command's (-storepass S3cr3t-x, AUTH S3cr3t-x),
    # one in prose (the admin pass for grafana is S3cr3t-x)
    return any(len(t) >= 8 and _mixed(t) for t in tokens[:6]) or any(
        len(t) >= 16 and _mixed(t) for t in tokens
    )


def _mixed(token: str) -> bool:
    return any(c.isdigit() for c in token) and any(c.isalpha() for c in token)


def inside_uri(text: str, start: int) -> bool:
    """Whether position ``start`` is inside an ARN or a URL, whose parts (``…:secret:prod/db``,
    ``/secrets/``) name a secret without holding one."""
    token = text[max(0, start - 200) : start]
    for blank in " \t\n\"'`(<[=,|":
        token = token.rpartition(blank)[2]
    return token.startswith("arn:") or "://" in token


def public_before(text: str, start: int) -> bool:
    """Whether the word before ``start`` says the key or token named there is public or an id
    ("Public key: 7xKX…", "commit token …")."""
    before = text[max(0, start - 24) : start].lower().split()[-2:]
    # or the word before that: "public view key: …"; a record's or a cache's key: "restored cache
    # key: Linux-pip-<sha256>", "partition key: tenant-…"
    return any(
        word.strip("-_:") in HASH_WORDS or word in _KEYS_OF_RECORDS for word in before[-1:]
    ) or (len(before) == 2 and before[0] == "public")


# words before "key" that make it a record's, a table's or a cache's key, no credential
_KEYS_OF_RECORDS = frozenset(
    ("cache", "partition", "sort", "primary", "foreign", "routing", "shard", "lookup")
    + ("row", "composite", "dedup", "dedupe", "idempotency", "object", "map", "dict", "hash")
)


def generated_name(value: str) -> bool:
    """A name a machine made for a runner, a pod or a container: lower-case words, then a short
    random part or two, joined by ``-`` (``gha-runner-btotd-3Itk5``, ``web-worker-kq2Lm``)."""
    parts = value.split("-")
    return (
        len(parts) >= 3
        and all(part.isalnum() and len(part) <= 10 for part in parts)
        and sum(part.isalpha() and part.islower() for part in parts[:-1]) >= 2
    )


def located_id(value: str) -> bool:
    """A request's id with the site that served it: hex, then ``-`` and a data centre's or an
    airport's code in one case (Cloudflare's ``cf-ray: 8d2e4f6a1b3c5d7e-LHR``, a log's
    ``…-lhr``, a CDN's ``…-FRA56``): its kinds of character come from two single-case parts, no
    password's."""
    head, _, site = value.rpartition("-")
    return (
        12 <= len(head) <= 40
        and all(c in "0123456789abcdef" for c in head)
        and any(c.isdigit() for c in head)
        and 3 <= len(site) <= 6
        and site[:3].isalpha()
        and (site[:3].isupper() or site[:3].islower())
        and (site[3:].isdigit() or not site[3:])
    )


def classes(value: str) -> int:
    """How many of lower case, upper case, digits and symbols ``value`` mixes."""
    return (
        any(c.islower() for c in value)
        + any(c.isupper() for c in value)
        + any(c.isdigit() for c in value)
        + any(not c.isalnum() for c in value)
    )


# characters of each end of a long value that ``is_reference`` and ``placeholder`` read
_VIEW = 256


def ends(value: str) -> str:
    """A long value's two ends, ``_VIEW`` characters each, where a placeholder, a reference, a
    mask or code shows (``ghp_xxxx…``, ``${…}``, ``sk-...a1b2``); a short value whole. Read whole,
    each value of a run like "token=token=…" or "PIN=PIN=…" (every one reaching to the run's end)
    made 30 KB of it take seconds."""
    return value if len(value) <= 2 * _VIEW else value[:_VIEW] + value[-_VIEW:]


# a placeholder's words: your-api-key-here, changeme, example, TODO
_STAND_IN = (
    r"(?i)^(?:your|my|insert|enter|replace|put|paste|sample)[-_ ]|[-_ ](?:here|goes[-_ ]here)$"
    r"|placeholder|changeme|change[-_]me|replace[-_]?me|example|dummy"
    r"|^(?:xxx+|yyy+|todo|tbd|secret|password|pass|token)\d*$"
)
# a word of each branch of _STAND_IN: an ASCII value (for which (?i) is lower case) without one of
# them cannot match it, and is not searched (the search is most of ``is_reference``'s time)
_STAND_IN_WORDS = (
    *("your", "my", "insert", "enter", "replace", "put", "paste", "sample", "here"),
    *("placeholder", "change", "example", "dummy", "xxx", "yyy", "todo", "tbd", "secret", "pass"),
    "token",
)


def _may_stand_in(value: str) -> bool:
    if not value.isascii():
        return True
    low = value.lower()
    return any(word in low for word in _STAND_IN_WORDS)


def is_reference(value: str, paths: bool = True) -> bool:
    """A value that only points at a secret or stands in for one: an env var, a template, a
    placeholder, a mask, code (a call, a subscript, a dotted name), a file path (unless ``paths`` is
    false: in a URL's password a "/" is just a character), an empty or marker value."""
    import re

    stripped = ends(value.strip())
    if stripped.endswith(("\\n", "\\r", "\\t")):
        # the escaped line break that ends a line of code in a JSON string ("auth = parsed.auth\\n")
        stripped = re.sub(r"(?:\\[nrt])+$", "", stripped) or stripped
    # {"password": null}: the object's closing brace is no part of the value
    bare = stripped.rstrip("}]),;.`'\"").lower()
    if (
        not bare
        or bare in NOT_SECRETS
        or (
            stripped.startswith(_REFERENCE_PREFIXES)
            # a `%` opens a reference (`%DB_PASS%`, `%(password)s`, `%s`, `%PASSWORD`) or an encoded
            # character, not a random word
            and (
                stripped[0] != "%"
                or "%" in stripped[1:]
                or stripped[1:2] in "({"
                or len(bare) < 8
                or stripped[1:].replace("_", "").isalpha()
                # percent-encoded (`authSource=%24external`)
                or not stripped[1:3].strip("0123456789abcdefABCDEF")
            )
        )
    ):
        return True
    if (
        stripped[0] in "([{"
        or "[redacted" in stripped.lower()
        or (stripped.endswith(">") and "<" not in stripped)
        or set(stripped) <= set("*x•.#?-_")
        or any(m in stripped for m in ("...", "…", "**", "••"))
    ):
        # a mask: sk-...a1b2, ab**cd
        return True
    scheme = re.match(r"([a-z][a-z0-9+.\-]{1,20})://[^\s:@]+$", stripped)
    if scheme and scheme.group(1) not in ("http", "https", "ws", "wss", "ftp", "ftps"):
        # a secret store's address: sm://projects/…/secrets/db, vault://…, awssm://…
        return True
    if re.fullmatch(r"https?://[\w\-]++(?:\.[\w\-]++)*+(?::\d{1,5})?/?", stripped):
        # a site's bare address, which a credential is for ([credential "https://github.com"])
        return True
    if (_may_stand_in(stripped) and re.search(_STAND_IN, stripped)) or re.fullmatch(
        r"[A-Z]+(?:_[A-Z]+)+", stripped
    ):
        # a placeholder: your-api-key-here, <token>, changeme; a variable's name (ACCESS_TOKEN)
        return True
    if ":" in stripped and all(
        part in _FORMAT_WORDS for part in re.split(r"[:@/]", stripped.lower())
    ):
        # a format's fields named, not filled: "each line is user:hash", "user:password@host"
        return True
    if stripped[:2] in ("my", "yo") and re.fullmatch(r"(?:my|your)(?:[A-Z][a-z]+)+", stripped):
        # a documentation's stand-in: Password=myPassword; (connectionstrings.com), yourPassword
        return True

    if (
        re.fullmatch(
            r"[A-Za-z_][\w:]*(?:\.[A-Za-z_]\w*)*[(\[].*|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+|%\(\w+\)s|\{\w*\}",
            stripped,
        )
        is not None
    ):
        # code (config.password, os.environ[…]); not a token cut by dots (abcdef.0123456789abcdef)
        return any(c in stripped for c in "([{%") or not any(
            len(part) >= 16
            and part.isalnum()
            and not wordish(part)
            and any(c.isdigit() for c in part)
            and not _class_name(part)
            for part in stripped.split(".")
        )
    return paths and is_path(stripped)


# the names of a credential format's fields, as a description of the format writes them
_FORMAT_WORDS = frozenset(
    ("user", "username", "login", "pass", "password", "passwd", "pw", "hash", "host", "port")
    + ("db", "database", "name", "token", "secret", "key", "salt", "value", "id", "email")
)


def _class_name(part: str) -> bool:
    """A class's name of capitalised words and acronyms, digits after them
    (``BCryptSHA256PasswordHasher``, ``PBKDF2PasswordHasher``): code, not a token cut by dots."""
    import re

    return (
        re.fullmatch(r"(?:[A-Z]{1,2}[a-z]{2,}\d*|[A-Z]{2,}\d*(?![a-z]))+", part) is not None
        and len(re.findall(r"[A-Z][a-z]{2,}", part)) >= 2
    )


def is_path(value: str) -> bool:
    """A file path (/etc/gcp/key.json, ~/.ssh/id_rsa, C:\\keys\\app.pfx), unless a segment reads as
    random base64, which a key that starts with "/" would."""
    import re

    if (
        re.fullmatch(
            r"(?:[\w.\-]+:)?(?:~|\.{1,2})?(?:/[\w.\-@]+)+/?|[A-Za-z]:\\[\w.\\\- "
            r"]+|[\w\-]+(?:/[\w.\-]+)*/[\w\-]+\.\w{1,5}",
            value,
        )
        is None
    ):
        return False
    if system_path(value):
        return True
    # a file's extension is no part of its name's randomness (…/1e44dd70….png)
    return not any(
        classes(re.sub(r"\.\w{1,5}$", "", part)) >= 3 and len(part) >= 12
        for part in value.split("/")
    )


# the first directories of an absolute path on a machine (Linux, macOS, a CI runner, a container)
_ROOTS = frozenset(
    (
        *("home", "Users", "tmp", "var", "usr", "opt", "private", "mnt", "srv", "root", "run"),
        *("etc", "lib", "data", "workspace", "workspaces", "builds", "github", "nix", "snap"),
        *("media", "Volumes", "Library", "Applications", "cygdrive", "testbed", "app", "code"),
    )
)


def system_path(value: str) -> bool:
    """An absolute path under a machine's own directories, three levels deep or more, whose parts
    may hold a random run a tool made (a virtualenv's ``x--DO1bU6C``, mktemp's ``tmp.Fm6yiwvARV``,
    pip's ``pip-ephem-wheel-cache-07l9px25``, a cache's hex): still a path, not a key that starts
    with "/" (no key starts with "/home/" or "/tmp/"). A part that is a long random run of its own
    (a token kept as a file's name) is no tool's."""
    import re

    parts = value.split("/")
    if value.startswith("~/"):
        parts = ["", "home", *parts[1:]]
    if len(parts) < 4 or parts[0] or parts[1] not in _ROOTS:
        return False
    return not any(
        len(run) >= 20 and classes(run) >= 3 for part in parts for run in re.split(r"[-_.]", part)
    )


def looks_random(value: str) -> bool:
    """A word in prose ("the token is stored") versus a credential (digits, symbols, mixed case,
    length)."""
    # "the secret is patience: wait" ends a clause, not a password
    value = value.rstrip(".,:;!?)")
    return (
        len(value) >= 20
        or any(c.isdigit() for c in value)
        or any(not c.isalnum() for c in value)
        or any(c.isupper() for c in value[1:])
    )


def not_a_value(value: str) -> bool:
    """Things that follow "token:" or "password:" in prose and are not secrets: counts and sizes
    (4096, 128k, 8+), versions (v2.1.0), dates, durations, percentages."""
    import re

    return (
        re.fullmatch(
            r"[<>~≈+\-]?\d[\d.,_]*(?:[kKmMgGtTbB%x+]|ms|[smhd]|px|em|kb|mb|gb|tb|bit|bits|"
            r"chars?|characters?)?|v?\d+(?:\.\d+){1,3}(?:[-+][\w.]+)?|\d{4}-\d\d-\d\d(?:[T "
            r"][\d:.]+Z?)?",
            value,
        )
        is not None
    )


def wordish(value: str) -> bool:
    """Words joined by separators (prod-cluster-01, user_profile_v2, bcrypt-12): a name, not a
    random string."""
    import re

    parts = [p for p in re.split(r"[-_./~+:]", value) if p]
    return all(
        re.fullmatch(r"[A-Z]*\d{0,4}|[A-Z]?[a-z]+(?:[A-Z][a-z]+)*\d{0,4}|\d{1,4}", p) for p in parts
    )


def credential_like(value: str, strict: bool) -> bool:
    """A password-shaped value. Loose: what ``looks_random`` says, four characters or more. Strict
    (after a bare word, in a label, as a flag's value): eight or more, three kinds of character, not
    a name. A long value is judged by its ends."""
    value = ends(value.rstrip(".,"))
    if len(value) < 4 or is_reference(value) or (not_a_value(value) and not value.isdigit()):
        return False
    if not strict:
        return looks_random(value)
    return len(value) >= 8 and classes(value) >= 3 and not wordish(value) and not is_path(value)


def app_password(rest: str, start: int) -> tuple[int, int] | None:
    """An app password at ``start`` of ``rest``, as Google shows it, four groups of four random
    letters ("App password: wxqz hkpt rmvb lcaf"), or WordPress's six of letters and digits; not
    four words ("password: this will fail soon"): two of its groups at least without a vowel or
    with three consonants in a row."""
    import re

    found = re.compile(r"[ \t]*([A-Za-z0-9]{4}(?: [A-Za-z0-9]{4}){3,5})(?![\w\-])").match(
        rest, start
    )
    if found is None:
        return None
    if not found.group(1).islower():
        # WordPress's: six groups mixing cases and digits
        return found.span(1) if classes(found.group(1).replace(" ", "")) == 3 else None
    # lower-case letters with digits among them too (8q87 74xc 8mvn lq04): a group that mixes both
    # is no word
    odd = sum(
        re.search(r"[aeiouy]", group) is None
        or re.search(r"[^aeiouy]{3}", group) is not None
        or (not group.isalpha() and not group.isdigit())
        for group in found.group(1).split()
    )
    return found.span(1) if odd >= 2 else None


def random_printable(value: str) -> bool:
    """A random run of printable characters, symbols among them (an OCI auth token, a WordPress
    salt: ``8X(h>u2;Lq5e}Wm9:Z1[``): 16 or more, all four kinds, three symbols that no path, URL,
    name or version holds, the entropy of random text."""
    marks = sum(not c.isalnum() and c not in "-_./:=+~@" for c in value)
    if len(value) < 16 or marks < 3 or "://" in value or classes(value) < 4:
        return False
    return _entropy(value) >= 3.8 and not is_reference(value)


# a test runner's outcome words, in its capitals ("Pass: …" is as likely a label as a status)
_OUTCOMES = ("PASS", "PASSED")


def test_outcome(text: str, start: int, name: str, end: int) -> bool:
    """``PASS: <what was tested> <how it went>``: a test's outcome, not a password: the value is
    followed on its line by a sentence (two words), an arrow or a duration (``PASS: __init__ was
    included.``, ``PASS: http://host -> ('', '')``, ``--- PASS: TestParse (0.00s)``). A password
    alone on its line (``USER: admin`` then ``PASS: …``), or with a user's label (``USER:``,
    ``login=``) on its line or the line before, stays one."""
    import re

    if name not in _OUTCOMES:
        return False
    # ``LINE_REACH`` characters after the value, twice that before it (read whole, a long line of
    # outcomes was read again for each; review BM)
    after = text[end : end + LINE_REACH].partition("\n")[0]
    if not re.match(r"[ \t]+(?:->|=>|→|\(\d[\d.]*[ \t]*m?s\)|[a-z]{2,}[ \t]+[\w(])", after):
        return False
    # its line and the one before it
    before = "\n".join(text[max(0, start - 2 * LINE_REACH) : start].split("\n")[-2:])
    return (
        re.search(
            r"(?im)(?:^|[\s,;({\"'])(?:user(?:name)?|login|uid|account)[\"']?[ \t]*[:=]", before
        )
        is None
    )


def closes_quote(text: str, start: int, rest: str) -> bool:
    """Whether the quote right after the word at ``start`` closes a string the word ends, opened
    earlier on its line (``uri="/digest-auth", qop=…``): it opens no value."""
    quote = rest[:1]
    if not quote or quote not in "\"'`":
        return False
    return marks_before(text, quote, start) % 2 == 1


def keyword_argument(value: str) -> bool:
    """A value that is itself an assignment to another name, whose name says no secret: a call's
    keyword arguments (``left=0, right=1``, ``offset=np.timedelta64(0, 'ns')``, ``positive=True``),
    a log's field (``member=_private_method_2``). What it assigns is that name's, judged by the
    rules that read that name; a secret's own name (``password=…``) is never one of these."""
    import re

    found = re.match(r"([A-Za-z_][A-Za-z0-9_]*)[ \t]*=(?!=)[ \t]*([^,]*)", value)
    if found is None or name_word(found.group(1)) is not None or not wordish(found.group(1)):
        return False
    given = found.group(2).strip().rstrip(")`'\"")
    return bool(given) and (
        given in ("True", "False", "None", "true", "false", "null", "nil")
        or re.fullmatch(r"[-+]?\d[\d_]*(?:\.\d+)?(?:[eE][-+]?\d+)?", given) is not None
        or wordish(given)
        or re.fullmatch(r"[A-Za-z_][\w.]*\(.*", given) is not None
    )


def version_string(value: str) -> bool:
    """A program's or a system's name, then its version, then what the build says of itself: a
    version banner (``Sphinx-3.5.0+/b19bce971``, ``rustc-1.78.0-nightly/3cbb932``), a platform
    string (``Linux-4.4.0-17763-Microsoft-x86_64-with-Ubuntu-18.04-bionic``,
    ``macOS-12.4-arm64-arm-64bit``, ``Windows-10-10.0.17763-SP0``). A name of letters, a ``-`` and a
    dotted version (or a release number and a dotted one): a random token has no such head."""
    import re

    head = re.match(
        r"[A-Za-z][A-Za-z]{1,15}[-_]v?(?:\d{1,4}[-_])?\d{1,5}\.\d{1,6}(?:\.\d+)*", value
    )
    if head is None:
        return False
    # what follows is build words, versions, a short commit: nothing random and long
    rest = re.split(r"[-_+/.]", value[head.end() :])
    return all(len(part) <= 12 or wordish(part) for part in rest)


def dotted_numbers(value: str) -> bool:
    """Numbers joined by dots after a short tag: an analytics id or a timestamp pair
    (``GA1.2.1234567890.1698765432``, ``fb.1.1596403881668.1116446470``), no token."""
    import re

    return re.fullmatch(r"(?:[A-Za-z]{1,4}\d?\.)*\d+(?:\.\d+)+", value) is not None


def high_entropy(value: str) -> bool:
    """A random token (16+ characters that mix letters and digits the way keys do), not a hash-like
    id shape we know (UUID), a file's base64, a path, a dotted or joined name, a version."""
    import re

    # a long value is judged by its ends (each value of "anahtar=anahtar=…" reached the run's end)
    value = ends(value.rstrip("="))
    if len(value) < 16 or value.startswith(_FILE_MAGIC) or is_reference(value) or wordish(value):
        return False
    # a certificate's DER: public
    if re.match(r"MII[\w+/]{2}CCA", value):
        return False
    if re.fullmatch(
        r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}", value
    ):
        return False
    letters, digits = sum(c.isalpha() for c in value), sum(c.isdigit() for c in value)
    if not letters or not digits:
        return False
    if cache_key(value):
        return False
    if "_" in value and digits <= 2 and re.fullmatch(r"_*[a-z][a-z0-9]*(?:_+[a-z0-9]+)*_*", value):
        # a code's name in snake case, a digit or two in it (_conftestpath2mod, s3_bucket_for_logs):
        # random lower-case tokens hold a digit in three characters and no "_"
        return False
    return _entropy(value) >= (3.0 if re.fullmatch(r"[0-9a-fA-F]+", value) else 3.3)


def cache_key(value: str) -> bool:
    """A CI cache's key: words, then a digest of what the cache holds (``Linux-pip-<sha256>``,
    ``node-cache-Linux-x64-npm-<sha256>``), one of the words a system's or a package manager's."""
    import re

    return re.fullmatch(
        r"(?:[A-Za-z][A-Za-z0-9]*[-_]){2,}(?:[0-9a-f]{40}|[0-9a-f]{64})", value
    ) is not None and any(part.lower() in _CACHE_PARTS for part in re.split(r"[-_]", value)[:-1])


# the words a CI cache's key is made of (actions/cache, GitLab's cache:key:files)
_CACHE_PARTS = frozenset(
    ("linux", "windows", "macos", "darwin", "ubuntu", "x64", "arm64", "cache", "deps", "node")
    + ("npm", "pip", "yarn", "pnpm", "cargo", "gradle", "maven", "go", "poetry", "conda", "uv")
)


def _entropy(value: str) -> float:
    import math

    counts = {c: value.count(c) for c in set(value)}
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


# The words as the folded text holds them ("κωδικός" folds to "κωδικόσ"), each once.
PASSWORD_WORDS, SECRET_WORDS, KEY_WORDS = (
    tuple(dict.fromkeys(map(fold, words))) for words in (PASSWORD_WORDS, SECRET_WORDS, KEY_WORDS)
)
PROSE_WORDS = PASSWORD_WORDS + SECRET_WORDS
NAME_WORDS = PASSWORD_WORDS + NAME_ONLY_WORDS + SECRET_WORDS + KEY_WORDS

NAME_SUFFIX = (
    r"(?:[_\-.]?(?:key|id|value|b64|base64|data|str|string|plain|text|txt|enc|encrypted))?\d*"
)
_BY_LENGTH = sorted((w for w in NAME_WORDS if " " not in w), key=len, reverse=True)
_PASS_PREFIXES = (
    "ssh",
    "db",
    "root",
    "admin",
    "user",
    "smtp",
    "ftp",
    "mail",
    "redis",
    "store",
    "key",
    "trust",
    "proxy",
    "bind",
    "rpc",
    "vnc",
    "sql",
    "become",
    "sudo",
    "vault",
    # redis' requirepass
    "require",
)


# each answer in a 1-tuple, so that None (no word) is an answer too
_NAME_WORDS: dict[str, tuple[tuple[str, bool] | None]] = {}


def names_a_secret(value: str) -> bool:
    """Lower-case words joined by ``-`` or ``_``, one of them a secret's (``db-password``): a
    secret's name in a store, not the secret."""
    parts = value.strip("`'\"),.;").replace("_", "-").split("-")
    return (
        len(parts) >= 2
        and all(part.isalpha() and part.islower() for part in parts)
        and any(name_word(part) for part in parts)
    )


def name_word(name: str) -> tuple[str, bool] | None:
    """The secret word in an identifier (DB_PASSWORD, apiKey, SSHPASS, client-key-data, Passwort)
    and whether it ends the name (before a suffix such as _id, _b64, 2), or None. The longest word
    wins; "pass" counts after a separator or a known prefix (SSHPASS, storepass), not in bypass or
    compass. Answers are kept (a long import sees the same names again); not with functools, whose
    import (collections and all) a recording hook would pay."""
    # one read and one write, never a read after a write: another thread may clear the dict between
    # them (an HTTP server redacts on several threads)
    found = _NAME_WORDS.get(name)
    if found is None:
        if len(_NAME_WORDS) > 4096:
            _NAME_WORDS.clear()
        found = _NAME_WORDS[name] = (_name_word(name),)
    return found[0]


def _name_word(name: str) -> tuple[str, bool] | None:
    plain = name.strip("\"'")
    folded = fold(name).strip("\"'")
    if not any(w in folded for w in _BY_LENGTH):
        return None
    import re

    stem = len(re.sub(NAME_SUFFIX + "$", "", folded))
    inside = None
    for word in _BY_LENGTH:
        start = folded.find(word)
        while start >= 0:
            if (
                word == "auth"
                and folded.startswith(("author", "authority"), start)
                and not (folded.startswith(("authoriz", "authoris"), start))
            ):
                # certificate-authority-data, author_email: no credential's word
                start = folded.find(word, start + 1)
                continue
            if (
                word != "pass"
                or not start
                or not folded[start - 1].isalpha()
                or folded[:start].endswith(_PASS_PREFIXES)
                # camelCase: kPass, dbPass (not bypass or compass)
                or (
                    len(plain) == len(folded)
                    and plain[start - 1].islower()
                    and plain[start].isupper()
                    and not folded[:start].endswith(("by", "com", "sur", "over"))
                )
            ):
                if start + len(word) in (len(folded), stem):
                    return word, True
                if not _cut_abbreviation(word, plain, folded, start):
                    inside = inside or (word, False)
            start = folded.find(word, start + 1)
    return inside


# Secret words of three letters or fewer that are abbreviations (a GitHub PAT, a PIN): inside a
# name they count only as a part of their own, not as letters of a longer word (pattern1,
# filepath, _update_patch_limits, MutableMapping, dispatcher)
_ABBREVIATIONS = frozenset(("pat", "pin", "pw", "pwd", "psw", "otp", "puk", "psk", "wif", "mdp"))


def _cut_abbreviation(word: str, plain: str, folded: str, start: int) -> bool:
    """Whether the short ``word`` found at ``start`` inside a name is only letters of a longer
    word there: a letter right after it that goes on in the same case (``pat|tern``, ``file|pat|h``)
    or right before it (``com|pat_path``, ``dis|pat|cher``)."""
    if word not in _ABBREVIATIONS or len(plain) != len(folded):
        return False
    end = start + len(word)
    after = plain[end : end + 1]
    before = plain[start - 1 : start] if start else ""
    # a part starts at a case change (filePat, PATToken) and ends at one (patToken)
    joined_after = after.isalpha() and not (after.isupper() and plain[end - 1].islower())
    joined_before = before.isalpha() and not (before.islower() and plain[start].isupper())
    return joined_after or joined_before
