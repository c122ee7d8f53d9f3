/*
 * The card's look: Home Assistant's theme variables throughout, so the card follows the theme.
 */

import { css } from "./vendor/lit.js";

export const cardStyles = css`
  :host { display: block; }
  ha-card { padding: 12px 16px 16px; color: var(--primary-text-color); }
  .header { display: flex; align-items: center; justify-content: space-between; gap: 8px; flex-wrap: wrap; }
  .title { font-size: 1.25em; font-weight: 500; }
  .badges { display: flex; gap: 6px; flex-wrap: wrap; }
  .badge { border-radius: 999px; padding: 2px 10px; font-size: 0.8em; background: var(--secondary-background-color);
           color: var(--primary-text-color); border: 1px solid var(--divider-color); }
  .badge.on { background: var(--success-color, #43a047); color: var(--text-primary-color, #fff); border-color: transparent; }
  .badge.warn { background: var(--warning-color, #ffa600); color: var(--text-primary-color, #fff); border-color: transparent; }
  .badge.bad { background: var(--error-color, #db4437); color: var(--text-primary-color, #fff); border-color: transparent; }
  .banner { margin: 10px 0 0; padding: 8px 12px; border-radius: 8px; background: var(--error-color, #db4437);
            color: var(--text-primary-color, #fff); font-weight: 500; }
  .phases { display: flex; gap: 4px; margin: 12px 0 4px; flex-wrap: wrap; }
  .phase { flex: 1; min-width: 70px; text-align: center; font-size: 0.75em; padding: 4px 2px; border-radius: 6px;
           background: var(--secondary-background-color); color: var(--secondary-text-color); }
  .phase.active { background: var(--primary-color); color: var(--text-primary-color, #fff); font-weight: 600; }
  .phase.active.phase-failed { background: var(--error-color, #db4437); }
  h3 { font-size: 0.95em; font-weight: 600; margin: 14px 0 6px; color: var(--secondary-text-color);
       text-transform: uppercase; letter-spacing: 0.04em; }
  .grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: 6px 12px; }
  .kv { display: flex; flex-direction: column; }
  .k { font-size: 0.75em; color: var(--secondary-text-color); }
  .v { font-size: 0.95em; overflow-wrap: anywhere; }
  pre { margin: 0; padding: 8px; border-radius: 6px; background: var(--code-editor-background-color, var(--secondary-background-color));
        font-size: 0.8em; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 220px; overflow: auto; }
  table { width: 100%; border-collapse: collapse; font-size: 0.85em; }
  th, td { text-align: left; padding: 3px 6px; border-bottom: 1px solid var(--divider-color); vertical-align: top; }
  th { color: var(--secondary-text-color); font-weight: 500; }
  .executed { color: var(--success-color, #43a047); }
  .blocked { color: var(--warning-color, #ffa600); }
  .failed { color: var(--error-color, #db4437); }
  .dry_run { color: var(--info-color, #039be5); }
  .cooldowns { display: flex; gap: 8px; flex-wrap: wrap; }
  .cooldown { flex: 1; min-width: 90px; padding: 6px 8px; border-radius: 8px; background: var(--secondary-background-color); }
  .cooldown .v { font-size: 1.2em; font-weight: 600; }
  .cooldown.ready .v { color: var(--success-color, #43a047); }
  .cooldown .members { font-family: var(--code-font-family, monospace); }
  .tools { display: flex; gap: 4px; flex-wrap: wrap; }
  .tool { font-family: var(--code-font-family, monospace); font-size: 0.8em; padding: 2px 6px; border-radius: 4px;
          background: var(--secondary-background-color); }
  .tool.blocked { border: 1px solid var(--warning-color, #ffa600); color: var(--primary-text-color); }
  .muted { color: var(--secondary-text-color); font-style: italic; }
  .tabs { display: flex; gap: 4px; margin-bottom: 6px; }
  .tabs button { flex: 1; font: inherit; font-size: 0.8em; padding: 4px 8px; border-radius: 6px; cursor: pointer;
                 border: 1px solid var(--divider-color); background: var(--secondary-background-color); color: var(--secondary-text-color); }
  .tabs button[aria-selected="true"] { background: var(--primary-color, #03a9f4); color: var(--text-primary-color, #fff); border-color: transparent; }
  .chat { max-height: 260px; overflow: auto; display: flex; flex-direction: column; gap: 4px; padding: 6px;
          border-radius: 6px; border: 1px solid var(--divider-color); }
  .chat[hidden] { display: none; }
  .line { padding: 3px 8px; border-radius: 8px; background: var(--secondary-background-color); max-width: 92%; align-self: flex-start; }
  .line .meta { display: flex; gap: 6px; align-items: baseline; font-size: 0.75em; color: var(--secondary-text-color); }
  .line .who { font-weight: 600; color: var(--primary-text-color); }
  .line .text { font-size: 0.9em; overflow-wrap: anywhere; white-space: pre-wrap; }
  .line .tag { border-radius: 4px; padding: 0 4px; border: 1px solid var(--divider-color); font-size: 0.9em; }
  .line.bot .text { color: var(--secondary-text-color); }
  .line.own { align-self: flex-end; background: var(--primary-color, #03a9f4); color: var(--text-primary-color, #fff); }
  .line.own .meta, .line.own .who, .line.own .text { color: var(--text-primary-color, #fff); }
  .line.own .tag { border-color: currentColor; }
  details summary { cursor: pointer; color: var(--secondary-text-color); font-size: 0.85em; margin: 6px 0; }
  .incident { border: 1px solid var(--divider-color); border-radius: 8px; padding: 0 8px; margin: 4px 0; }
  .incident[open] { padding-bottom: 8px; }
  .incident summary { color: var(--primary-text-color); overflow-wrap: anywhere; }
  .incident summary .badge { font-size: 0.9em; padding: 0 8px; }
  .incident .grid { margin: 4px 0 8px; }
  .incident td { overflow-wrap: anywhere; }
  .incident td:nth-child(-n + 2) { white-space: nowrap; } /* the time and what */
  .subhead { font-size: 0.75em; color: var(--secondary-text-color); margin: 8px 0 2px; }
  .approval { display: flex; flex-wrap: wrap; align-items: center; justify-content: space-between; gap: 4px 12px;
              margin: 4px 0; padding: 6px 8px; border-radius: 8px; border: 1px solid var(--warning-color, #ffa600); }
  .call { font-family: var(--code-font-family, monospace); font-size: 0.85em; overflow-wrap: anywhere; }
  .answer { display: flex; gap: 6px; }
  .answer button { font: inherit; font-size: 0.8em; padding: 4px 12px; border-radius: 6px; cursor: pointer;
                   border: 1px solid var(--divider-color); background: var(--secondary-background-color); color: var(--primary-text-color); }
  .answer button[data-answer="approve"] { background: var(--primary-color, #03a9f4); color: var(--text-primary-color, #fff); border-color: transparent; }
  .answer button:disabled { opacity: 0.5; cursor: default; }
  .approval .failed { flex-basis: 100%; font-size: 0.85em; }
  .progress { margin: 10px 0 0; padding: 6px 10px; border-radius: 8px; background: var(--secondary-background-color);
              font-family: var(--code-font-family, monospace); overflow-wrap: anywhere; }
  .pipeline .answer-text { white-space: pre-wrap; }
`;
