// webctx content script, part 1b (see namespace.js for the map): which fields are secret. The one
// rule for selection.js, focus_hover.js and page_text.js (docs/internals/extension.md "Secret fields").
//
// A field (input, textarea or contenteditable host) is secret when any of these hold:
//   - its `autocomplete` names a secret: current-password, new-password, one-time-code, cc-*;
//   - it is, or has ever been, `type=password` (a "show password" eye turns it into type=text:
//     remembered in a WeakSet, from `type` attribute changes and whenever it is read);
//   - its computed `-webkit-text-security` is not `none` (masked PIN inputs, masked contenteditables);
//   - its name, id, aria-label, placeholder or label reads as a card number, a CVC/CVV/security
//     code, a PIN, a password, or a one-time/verification/SMS code, in English or a major European
//     language (`secretHint`, whole words of any script only, so "pineapple" or "Spinat" is not a PIN).
// A secret field's text is never read: not as the focused field's content, not as a selection in
// it, not as context around another selection, not as page text.
//
// Also injected on demand before content/page_text.js (it sets `globalThis.webctxSecret`, kept on a
// second injection so what it remembered stays); node-tested: extension/test/secret_fields.test.js.

(function webctxSecretFields() {
  const scope = /** @type {{__webctx?: WebctxNamespace, webctxSecret?: WebctxSecretPart}} */ (/** @type {unknown} */ (globalThis));
  const existing = scope.webctxSecret;
  if (existing) {
    if (scope.__webctx && !scope.__webctx.secret) scope.__webctx.secret = existing;
    return;
  }

  /** `autocomplete` tokens that name a secret (HTML "autofill detail tokens"). */
  const SECRET_AUTOCOMPLETE = /^(?:current-password|new-password|one-time-code|cc-[a-z-]+)$/;
  /**
   * Hints that read as a secret, over the words of a name/label (`hintWords`: lower case, accents
   * removed, one space between words). Each alternative is whole words, so "pin" is caught but
   * "pineapple", "spinner", "Spinat" and "pinned" are not; "card" alone or "code" alone is not a
   * secret (a gift card message, a zip or promo code). English, then the words of German, French,
   * Spanish, Italian, Portuguese, Dutch, Polish, Swedish, Danish/Norwegian, Finnish, Czech and
   * Turkish forms (docs/internals/extension.md "Secret fields"); other languages are a known limit.
   */
  const SECRET_WORDS = new RegExp(
    "(?:^| )(?:" +
      [
        "c(?:vc|vv|vn|sc)", // the card's security code (cvc2, cvv2: the digit is its own word)
        "(?:card ?)?security ?code",
        "card ?(?:code|verification)",
        "(?:card ?)?verification ?(?:code|value|number)",
        "(?:credit ?|debit ?)?card ?(?:number|num|no|nr)",
        "cc ?(?:number|num|no|nr)",
        "(?:credit|debit) ?card",
        "pin(?: ?(?:code|number|no))?",
        "pass ?(?:word|wd|code)",
        "pwd",
        "one ?time ?(?:code|password|passcode|pin|token)",
        "t?otp(?: ?code)?",
        "sms ?code",
        "(?:2 ?fa|mfa|two ?factor)(?: ?code)?",
        "auth(?:entication)? ?code",
        // German: Kartennummer, Kreditkarte, Prüfnummer/Prüfziffer, Sicherheitscode, TAN, …
        "(?:(?:kredit|debit|bank)? ?karten ?(?:nummer|nr)|(?:kredit|debit) ?karte)",
        "(?:karten ?)?pr(?:u|ue)f ?(?:nummer|ziffer|zahl|code)",
        "(?:sicherheits|best(?:a|ae)tigungs|verifizierungs|authentifizierungs|einmal|zugangs) ?code",
        "einmal ?(?:passwort|kennwort|pin)",
        "(?:passwort|kennwort|geheimzahl|tan)",
        // French: numéro de carte, cryptogramme, code de sécurité / de vérification, mot de passe
        "(?:numero|no|n) (?:de (?:la )?)?carte(?: (?:bancaire|de credit))?",
        "carte (?:bancaire|de credit)",
        "cryptogramme(?: visuel)?",
        "code (?:de (?:securite|verification|confirmation)|a usage unique)",
        "mot de passe",
        // Spanish: número de tarjeta, código de seguridad / de verificación, contraseña
        "numero de (?:la )?tarjeta",
        "tarjeta de (?:credito|debito)",
        "codigo de (?:seguridad|verificacion|confirmacion)",
        "contrasena",
        // Italian: numero di carta, codice di sicurezza / di verifica
        "numero (?:di|della) carta(?: di credito)?",
        "carta di credito",
        "codice (?:di (?:sicurezza|verifica|conferma)|otp)",
        // Portuguese: número do cartão, código de segurança / de verificação, senha
        "numero do cartao(?: de credito)?",
        "cartao de credito",
        "codigo de (?:seguranca|verificacao|confirmacao)",
        "senha",
        // Dutch: kaartnummer, creditcardnummer, beveiligingscode, verificatiecode, wachtwoord
        "(?:credit ?card|kaart|bankpas) ?nummer",
        "(?:beveiligings|verificatie|bevestigings|controle) ?code",
        "wachtwoord",
        // Polish: numer karty, kod bezpieczeństwa / weryfikacyjny, hasło
        "numer karty",
        "kod (?:bezpieczenstwa|weryfikacyjny|potwierdzajacy|sms|cvv|cvc)",
        "has(?:ł|l)o",
        // Swedish, Danish/Norwegian, Finnish, Czech, Turkish
        "kort ?nummer",
        "(?:sakerhets|verifierings|bekraftelse|engangs|sikkerheds|sikkerhets|bekraeftelses) ?kode?",
        "(?:losenord|adgangskode|passord|salasana|heslo|sifre)",
        "kortin numero",
        "(?:turvakoodi|vahvistuskoodi)",
        "cislo karty",
        "(?:bezpecnostni|overovaci) kod",
        "kart numaras[iı]",
        "(?:guvenlik|dogrulama) kodu",
      ].join("|") +
      ")(?: |$)",
    "u",
  );
  /** Label text longer than this is cut before it is matched (a label may hold a paragraph). */
  const MAX_HINT_CHARS = 256;

  /**
   * The words of a name or label, for SECRET_WORDS: accents removed (NFD without its marks, so
   * "Prüfnummer" is "prufnummer", "código" "codigo"), camelCase, letter/digit boundaries and every
   * run of what is not a letter or digit of any script split, lower-cased, one space between
   * words. Pure.
   * @param {string} text e.g. "cardNumber", "cc_num", "SMSCode", "cvv2", "Numéro de carte"
   * @returns {string} e.g. "card number", "cc num", "sms code", "cvv 2", "numero de carte"
   */
  function hintWords(text) {
    return text
      .slice(0, MAX_HINT_CHARS)
      .normalize("NFD")
      .replace(/\p{M}+/gu, "")
      .replace(/(\p{Ll})(\p{Lu})/gu, "$1 $2")
      .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, "$1 $2")
      .replace(/(\p{L})(\p{Nd})/gu, "$1 $2")
      .replace(/(\p{Nd})(\p{L})/gu, "$1 $2")
      .toLowerCase()
      .replace(/[^\p{L}\p{Nd}]+/gu, " ")
      .trim();
  }

  /**
   * Whether a name, id, label, placeholder or aria-label reads as a secret field's. Pure.
   * @param {string} text
   * @returns {boolean}
   */
  function secretHint(text) {
    return SECRET_WORDS.test(hintWords(text));
  }

  /**
   * Whether an `autocomplete` attribute value names a secret (any of its tokens). Pure.
   * @param {string} value e.g. "section-pay cc-number", "current-password", "off"
   * @returns {boolean}
   */
  function secretAutocomplete(value) {
    return value
      .toLowerCase()
      .split(/\s+/)
      .some((token) => SECRET_AUTOCOMPLETE.test(token));
  }

  /** Inputs seen as `type=password` at any time: still secret once an eye toggle made them text. */
  const wasPassword = /** @type {WeakSet<Element>} */ (new WeakSet());

  /** @param {Element} element record it if it is a password input now */
  function notePassword(element) {
    if (element instanceof HTMLInputElement && element.type === "password") wasPassword.add(element);
  }

  // The eye toggle sets `type` (attribute or property, which reflects): the record's old value says
  // it was a password, whether or not it was seen before (a password autofilled and revealed before
  // the user focused it). Shadow roots are not observed: there the field is noted when it is read,
  // which the push after its focus or the user's typing does (report.js).
  const typeWatch = new MutationObserver((records) => noteTypeChanges(records));
  /** @param {MutationRecord[]} records */
  function noteTypeChanges(records) {
    for (const record of records) {
      const target = /** @type {Element} */ (record.target);
      if ((record.oldValue ?? "").trim().toLowerCase() === "password") wasPassword.add(target);
      notePassword(target);
    }
  }
  typeWatch.observe(document, { subtree: true, attributes: true, attributeFilter: ["type"], attributeOldValue: true });

  /**
   * Whether a field (input, textarea, or contenteditable host) is secret.
   * @param {Element} field
   * @returns {boolean}
   */
  function isSecretField(field) {
    noteTypeChanges(typeWatch.takeRecords()); // a toggle made in this very task
    notePassword(field);
    if (wasPassword.has(field)) return true;
    if (secretAutocomplete(field.getAttribute("autocomplete") ?? "")) return true;
    if (masked(field)) return true;
    return hintsOf(field).some(secretHint);
  }

  /**
   * Whether a node is inside a secret field: its element is masked (`-webkit-text-security`), its
   * contenteditable host is secret, or an ancestor is marked with a secret `autocomplete`. (An
   * `<input>` has no children: a Text node inside a field is always a contenteditable's.)
   * @param {Node} node
   * @returns {boolean}
   */
  function isInSecretField(node) {
    const element = node instanceof Element ? node : node.parentElement;
    if (!element) return false;
    if (element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement) return isSecretField(element);
    if (masked(element)) return true;
    const host = editingHost(element);
    if (host && isSecretField(host)) return true;
    const marked = element.closest("[autocomplete]");
    return marked !== null && secretAutocomplete(marked.getAttribute("autocomplete") ?? "");
  }

  /**
   * Whether a range holds text of a secret field: it lies inside one, or it spans a secret
   * contenteditable host (a selection over a paragraph, a masked field and another paragraph).
   * Only the contenteditable elements under the range's common ancestor are checked, so a big
   * selection does not style-check every text node.
   * @param {Range} range
   * @returns {boolean}
   */
  function rangeTouchesSecret(range) {
    const root = range.commonAncestorContainer;
    if (isInSecretField(root)) return true;
    if (!(root instanceof Element || root instanceof Document || root instanceof DocumentFragment)) return false;
    for (const element of root.querySelectorAll("[contenteditable]")) {
      if (!(element instanceof HTMLElement) || editingHost(element) !== element) continue;
      // intersectsNode is the costly test (a child index among maybe thousands): secret ones only.
      if (isSecretField(element) && range.intersectsNode(element)) return true;
    }
    return false;
  }

  /** @param {Element} element @returns {boolean} its computed `-webkit-text-security` masks it */
  function masked(element) {
    const value = getComputedStyle(element).getPropertyValue("-webkit-text-security");
    return value !== "" && value !== "none";
  }

  /** @param {Element} element @returns {HTMLElement | null} the outermost contenteditable holding it */
  function editingHost(element) {
    let host = element instanceof HTMLElement && element.isContentEditable ? element : null;
    while (host?.parentElement?.isContentEditable) host = host.parentElement;
    return host;
  }

  /** @param {Element} field @returns {string[]} its name, id, aria-label, placeholder and labels' text */
  function hintsOf(field) {
    /** @type {string[]} */
    const hints = [];
    for (const name of ["name", "id", "aria-label", "placeholder"]) {
      const value = field.getAttribute(name);
      if (value) hints.push(value);
    }
    const labelled = field.getAttribute("aria-labelledby");
    if (labelled) {
      const root = /** @type {Document | ShadowRoot} */ (field.getRootNode());
      for (const id of labelled.split(/\s+/)) {
        const label = id && "getElementById" in root ? root.getElementById(id) : null;
        if (label) hints.push((label.textContent ?? "").slice(0, MAX_HINT_CHARS));
      }
    }
    const labels = /** @type {{labels?: NodeListOf<HTMLLabelElement> | null}} */ (field).labels;
    for (const label of labels ?? []) hints.push((label.textContent ?? "").slice(0, MAX_HINT_CHARS));
    return hints;
  }

  /** @type {WebctxSecretPart} */
  const part = { isSecretField, isInSecretField, rangeTouchesSecret, secretHint, secretAutocomplete };
  scope.webctxSecret = part;
  const ns = scope.__webctx;
  if (ns) {
    ns.secret = part;
    ns.onStop(() => {
      typeWatch.disconnect();
      if (scope.webctxSecret === part) delete scope.webctxSecret;
    });
  }
})();
void 0;
