import { useEffect, useRef, useState } from 'react';
import type { RefObject } from 'react';
import { Terminal } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';
import '@xterm/xterm/css/xterm.css';
import { installConstructedStyles } from './constructed-styles';

installConstructedStyles();

/** The terminal's colours: the page's dark ink on a near-black ground, readable at AA contrast. */
const THEME = { background: '#111418', foreground: '#e6e8eb', cursor: '#e6e8eb', selectionBackground: '#3a4a5c' };

/**
 * An xterm.js terminal in `host`, fitted to its width as the page resizes, disposed on unmount.
 * `convertEol`: the game writes "\n" line ends, which a terminal would only move down on.
 */
export function useTerminal(host: RefObject<HTMLDivElement | null>, label: string): Terminal | undefined {
  const [terminal, setTerminal] = useState<Terminal>();
  const labelRef = useRef(label);
  useEffect(() => {
    const element = host.current;
    if (element === null) return;
    const term = new Terminal({
      convertEol: true,
      cursorBlink: false,
      disableStdin: true,
      // The design system's fixed-width fonts (@gsp/ui's --mono), which xterm needs as a string.
      fontFamily: getComputedStyle(element).getPropertyValue('--mono').trim() || 'monospace',
      fontSize: 14,
      rows: 16,
      scrollback: 2000,
      screenReaderMode: true,
      theme: THEME,
    });
    const fit = new FitAddon();
    term.loadAddon(fit);
    // Tab and Shift+Tab move focus on, as everywhere on the page: the terminal is no keyboard trap
    // (the console reads lines, so a Tab would do nothing in it anyway).
    term.attachCustomKeyEventHandler((event) => event.key !== 'Tab');
    term.open(element);
    term.textarea?.setAttribute('aria-label', labelRef.current);
    const refit = () => {
      // Hidden (zero size) terminals have no dimensions to fit to.
      if (element.clientWidth > 0) fit.fit();
    };
    refit();
    const observer = new ResizeObserver(refit);
    observer.observe(element);
    setTerminal(term);
    return () => {
      observer.disconnect();
      term.dispose();
      setTerminal(undefined);
    };
  }, [host]);
  return terminal;
}
