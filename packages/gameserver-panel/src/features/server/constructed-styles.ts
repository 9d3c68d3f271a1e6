/**
 * xterm.js 6's DOM renderer writes its theme, cell sizes and scrollbar colours into `<style>`
 * elements it creates and appends (DomRenderer `_injectCss`, `_updateDimensions`; Viewport), which
 * the panel's CSP (`style-src 'self'`, no 'unsafe-inline') blocks: the terminal would render
 * without them and every write would report a violation. Rather than weaken the CSP, the `<style>`
 * elements made through this document's `createElement` become `<gsp-style>` elements whose text
 * goes into a constructed stylesheet (`new CSSStyleSheet()` + `adoptedStyleSheets`), which CSP
 * does not govern, as for any script-written CSSOM. Scripts are the page's own (`script-src
 * 'self'`); what the CSP guards against, injected markup's styles, stays blocked.
 */

const TAG = 'gsp-style';

class ConstructedStyle extends HTMLElement {
  private readonly sheet = new CSSStyleSheet();
  private css = '';

  constructor() {
    super();
    // `textContent` and `innerText` are the ways xterm sets a style element's rules.
    const text = {
      get: () => this.css,
      set: (value: unknown) => {
        this.css = typeof value === 'string' ? value : '';
        this.sheet.replaceSync(this.css);
      },
    };
    Object.defineProperty(this, 'textContent', text);
    Object.defineProperty(this, 'innerText', text);
  }

  connectedCallback(): void {
    this.hidden = true;
    const doc = this.ownerDocument;
    if (!doc.adoptedStyleSheets.includes(this.sheet)) doc.adoptedStyleSheets = [...doc.adoptedStyleSheets, this.sheet];
  }

  disconnectedCallback(): void {
    const doc = this.ownerDocument;
    doc.adoptedStyleSheets = doc.adoptedStyleSheets.filter((sheet) => sheet !== this.sheet);
  }
}

let installed = false;

/** Makes `document.createElement('style')` give constructed-stylesheet elements; once per page. */
export function installConstructedStyles(doc: Document = document): void {
  if (installed) return;
  installed = true;
  customElements.define(TAG, ConstructedStyle);
  const create = doc.createElement.bind(doc) as (tag: string, options?: ElementCreationOptions) => HTMLElement;
  Object.defineProperty(doc, 'createElement', {
    configurable: true,
    value: (tag: string, options?: ElementCreationOptions) =>
      tag.toLowerCase() === 'style' ? create(TAG) : create(tag, options),
  });
}
