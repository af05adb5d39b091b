// Lit components for the page-text tests and bench (tests/support/component_pages.py bundles
// this with esbuild from node_modules at test time): an open shadow root with a slot, a closed
// one, and one nested in another's shadow root.
import { LitElement, html } from "lit";

class WcCard extends LitElement {
  static properties = { heading: {}, n: {} };
  render() {
    return html`<section><h3>${this.heading}</h3><p>Shadow text of card ${this.n}.</p><slot></slot><p>After the slot of card ${this.n}.</p></section>`;
  }
}

class WcClosed extends LitElement {
  static shadowRootOptions = { ...LitElement.shadowRootOptions, mode: "closed" };
  render() {
    return html`<p>Closed shadow words.</p><p style="display: none">Hidden closed words.</p>`;
  }
}

class WcOuter extends LitElement {
  render() {
    return html`<div><p>Outer shadow words.</p><wc-card heading="Inner" n="inner"><span>slotted into the inner card</span></wc-card></div>`;
  }
}

customElements.define("wc-card", WcCard);
customElements.define("wc-closed", WcClosed);
customElements.define("wc-outer", WcOuter);
// Ready once every component (the nested ones too) has rendered.
const all = () => [...document.querySelectorAll("wc-card, wc-closed, wc-outer")];
await Promise.all(all().map((element) => /** @type {LitElement} */ (element).updateComplete));
await new Promise((resolve) => requestAnimationFrame(resolve));
document.body.dataset.ready = "1";
