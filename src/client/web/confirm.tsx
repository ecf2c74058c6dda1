// A button whose action needs a second, explicit yes (interfaces §6.2: agentd's web `stop` and cancel had none).
// The first press only asks; "keep" (focused first, and Escape) leaves everything as it was.
import { useEffect, useRef, useState } from 'preact/hooks';

export interface ConfirmButtonProps {
  /** The button's text, e.g. `Cancel task 1a2b3c4d`. */
  label: string;
  /** The question asked before acting, e.g. `Cancel task 1a2b3c4d?`; also the prompt's accessible name. */
  question: string;
  /** The confirming button's text, e.g. `Yes, cancel`. */
  yes: string;
  /** The button that backs out. */
  no?: string;
  class?: string;
  onConfirm(): void;
}

export function ConfirmButton(props: ConfirmButtonProps) {
  const [asking, setAsking] = useState(false);
  const keep = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) keep.current?.focus();
  }, [asking]);
  if (!asking) {
    return (
      <button type="button" class={props.class} onClick={() => setAsking(true)}>
        {props.label}
      </button>
    );
  }
  const confirm = () => {
    setAsking(false);
    props.onConfirm();
  };
  return (
    <div
      class={`confirm ${props.class ?? ''}`.trim()}
      role="alertdialog"
      aria-label={props.question}
      onKeyDown={(e) => {
        if (e.key === 'Escape') setAsking(false);
      }}
    >
      <span>{props.question}</span>
      <button type="button" class="danger" onClick={confirm}>
        {props.yes}
      </button>
      <button type="button" ref={keep} onClick={() => setAsking(false)}>
        {props.no ?? 'Keep it'}
      </button>
    </div>
  );
}
