// node --test: the pure part of the secret-field rule (content/secret_fields.js): which names,
// labels and `autocomplete` values make a field secret. The content script is a classic script;
// its pure helpers are lifted out of the source text here (the DOM part is tested in Chromium:
// tests/e2e/test_secret_fields.py).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import test from "node:test";

const source = readFileSync(new URL("../content/secret_fields.js", import.meta.url), "utf8");
/** @param {RegExp} pattern @returns {string} the part of the source `pattern` finds */
const lift = (pattern) => {
  const found = pattern.exec(source);
  assert.ok(found, `${pattern} not found in secret_fields.js`);
  return found[0];
};
const constant = (/** @type {string} */ name) => lift(new RegExp(`\\n  const ${name} = [\\s\\S]*?;\\n`));
const fn = (/** @type {string} */ name) => lift(new RegExp(`\\n  function ${name}\\([^)]*\\) \\{\\n[\\s\\S]*?\\n  \\}\\n`));
/** @type {{secretHint: (text: string) => boolean, secretAutocomplete: (value: string) => boolean, hintWords: (text: string) => string}} */
const { secretHint, secretAutocomplete, hintWords } = new Function(
  `${constant("SECRET_AUTOCOMPLETE")}${constant("SECRET_WORDS")}${constant("MAX_HINT_CHARS")}` +
    `${fn("hintWords")}${fn("secretHint")}${fn("secretAutocomplete")}; return {secretHint, secretAutocomplete, hintWords};`,
)();

test("hintWords splits camelCase, acronyms, digits and punctuation into lower-case words", () => {
  assert.equal(hintWords("cardNumber"), "card number");
  assert.equal(hintWords("SMSCode"), "sms code");
  assert.equal(hintWords("cvv2"), "cvv 2");
  assert.equal(hintWords("cc_num"), "cc num");
  assert.equal(hintWords("  One-time code: "), "one time code");
  assert.equal(hintWords("2FA-code"), "2 fa code");
});

test("names and labels of card numbers, security codes, PINs and one-time codes are secret", () => {
  for (const hint of [
    "cardnumber", "cardNumber", "card_number", "card-no", "Card number", "Credit card number", "ccnum",
    "cc-number", "ccNumber", "creditCard", "Debit card", "cvc", "CVV", "cvv2", "cvc_code", "CSC",
    "securityCode", "Security code", "card-code", "Card verification value", "verificationCode",
    "Verification code", "pin", "PIN", "pinCode", "pin_code", "pin1", "Enter your 4-digit PIN",
    "otp", "OTP code", "totp", "oneTimeCode", "One-time password", "one_time_pin", "smsCode",
    "SMS code", "2fa-code", "mfaCode", "Two-factor code", "authCode", "Authentication code",
    "password", "userPassword", "passwd", "passcode", "pwd",
  ]) {
    assert.equal(secretHint(hint), true, hint);
  }
});

test("ordinary names are not secret, even when a secret word is inside another word", () => {
  for (const hint of [
    "pineapple", "spinner", "Pinned notes", "opinion", "shipping", "Pinterest", "typing", "username",
    "email", "Search", "Your message", "Gift card message", "card holder", "Cardholder name",
    "Zip code", "postal_code", "Promo code", "coupon-code", "Country code", "Phone number",
    "Order number", "Verification email", "compass", "passage", "bypass", "topic", "stopped",
    "accvv", "discover", "", "   ",
  ]) {
    assert.equal(secretHint(hint), false, hint);
  }
});

test("autocomplete tokens name a secret: passwords, one-time codes, every cc-* token", () => {
  for (const value of [
    "current-password", "new-password", "one-time-code", "cc-number", "cc-csc", "cc-exp",
    "cc-exp-month", "cc-exp-year", "cc-name", "cc-type", "section-pay billing cc-number", "CC-Number",
  ]) {
    assert.equal(secretAutocomplete(value), true, value);
  }
  for (const value of ["", "off", "on", "username", "email", "name", "tel", "street-address", "postal-code", "password-hint"]) {
    assert.equal(secretAutocomplete(value), false, value);
  }
});

test("hintWords keeps letters of any script, removes accents and splits on non-letters", () => {
  assert.equal(hintWords("Bestätigungscode:"), "bestatigungscode");
  assert.equal(hintWords("Numéro de carte"), "numero de carte");
  assert.equal(hintWords("kartenNummer"), "karten nummer");
  assert.equal(hintWords("Hasło*"), "hasło");
  assert.equal(hintWords("Číslo karty"), "cislo karty");
  assert.equal(hintWords("2FA"), "2 fa");
});

test("card numbers, security codes, PINs and one-time codes in other languages are secret", () => {
  for (const hint of [
    // German
    "Kartennummer", "Kreditkartennummer", "Karten-Nr.", "Kreditkarte", "Prüfnummer", "Prüfziffer",
    "Kartenprüfnummer", "Pruefziffer", "Sicherheitscode", "Bestätigungscode", "Bestaetigungscode",
    "TAN", "mTAN", "TAN-Nummer", "PIN-Code", "Geheimzahl", "Passwort", "Einmalpasswort",
    // French
    "Numéro de carte", "numero de la carte bancaire", "N° de carte", "Cryptogramme visuel",
    "Code de sécurité", "Code de vérification", "code PIN", "Mot de passe",
    // Spanish
    "Número de tarjeta", "Código de seguridad", "Código de verificación", "Contraseña",
    // Italian
    "Numero di carta", "Numero della carta di credito", "Codice di sicurezza", "Codice di verifica",
    // Portuguese
    "Número do cartão", "Código de segurança", "Código de verificação", "Senha",
    // Dutch
    "Kaartnummer", "Creditcardnummer", "Beveiligingscode", "Verificatiecode", "Wachtwoord",
    // Polish
    "Numer karty", "Kod bezpieczeństwa", "Kod weryfikacyjny", "Hasło",
    // Nordic, Finnish, Czech, Turkish
    "Kortnummer", "Säkerhetskod", "Verifieringskod", "Engangskode", "Lösenord", "Kortin numero",
    "Číslo karty", "Kart numarası", "Doğrulama kodu",
    // Acronyms alone
    "2FA", "OTP", "MFA", "2fa",
  ]) {
    assert.equal(secretHint(hint), true, hint);
  }
});

test("ordinary fields in other languages stay shared", () => {
  for (const hint of [
    "Kartenansicht", "Spinat", "opt-in", "Opt in", "Postleitzahl", "Kartenzahlung", "Tante", "Tanzkurs",
    "Sicherheitsfrage", "Bestellnummer", "Telefonnummer", "Code postal", "Carte cadeau", "Code promo",
    "Numéro de téléphone", "Número de pedido", "Código postal", "Codice fiscale", "Numero civico",
    "Postcode", "Huisnummer", "Kod pocztowy", "Numer telefonu", "Kartta", "Optionen", "Optimal",
    "Mfanzi", "Stanza",
  ]) {
    assert.equal(secretHint(hint), false, hint);
  }
});
