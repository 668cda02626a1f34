"use client";
import ReactMarkdown, { type Components, defaultUrlTransform } from "react-markdown";
import remarkGfm from "remark-gfm";

// Notes and the brief are Markdown written by people AND agents (004 v1.17): rendered as React
// elements, never as HTML. Raw HTML in the text is dropped (skipHtml), a link or an image whose URL
// is not http(s), mailto or relative is emptied (react-markdown's defaultUrlTransform removes
// javascript:, data: and the like), images are shown as links (no request to a stranger's server
// when a note is opened), and links open in a new tab without the opener or a referrer.

const components: Components = {
  h1: (p) => <h3 className="mt-3 text-base font-semibold first:mt-0">{p.children}</h3>,
  h2: (p) => <h4 className="mt-3 text-sm font-semibold first:mt-0">{p.children}</h4>,
  h3: (p) => <h5 className="mt-2 text-sm font-semibold first:mt-0">{p.children}</h5>,
  h4: (p) => <h6 className="mt-2 text-sm font-medium first:mt-0">{p.children}</h6>,
  h5: (p) => <h6 className="mt-2 text-sm font-medium first:mt-0">{p.children}</h6>,
  h6: (p) => <h6 className="mt-2 text-sm font-medium first:mt-0">{p.children}</h6>,
  p: (p) => <p className="my-1.5 first:mt-0 last:mb-0">{p.children}</p>,
  ul: (p) => <ul className="my-1.5 list-disc pl-5">{p.children}</ul>,
  ol: (p) => <ol className="my-1.5 list-decimal pl-5">{p.children}</ol>,
  li: (p) => <li className="my-0.5">{p.children}</li>,
  blockquote: (p) => (
    <blockquote className="my-1.5 border-l-2 border-line-strong pl-3 text-muted">{p.children}</blockquote>
  ),
  code: (p) => <code className="rounded-sm bg-surface-2 px-1 font-mono text-[0.85em]">{p.children}</code>,
  pre: (p) => <pre className="my-1.5 overflow-x-auto rounded-md bg-surface-2 p-2 font-mono text-xs">{p.children}</pre>,
  a: (p) =>
    p.href ? (
      <a
        href={p.href}
        target="_blank"
        rel="noopener noreferrer nofollow"
        className="font-medium text-fg underline decoration-accent underline-offset-2"
      >
        {p.children}
      </a>
    ) : (
      <span>{p.children}</span>
    ),
  img: (p) =>
    p.src && typeof p.src === "string" ? (
      <a
        href={p.src}
        target="_blank"
        rel="noopener noreferrer nofollow"
        className="font-medium text-fg underline decoration-accent underline-offset-2"
      >
        {p.alt || "image"}
      </a>
    ) : null,
  table: (p) => (
    <div className="my-1.5 overflow-x-auto">
      <table className="border-collapse text-xs">{p.children}</table>
    </div>
  ),
  th: (p) => <th className="border border-line px-2 py-1 text-left font-semibold">{p.children}</th>,
  td: (p) => <td className="border border-line px-2 py-1">{p.children}</td>,
  hr: () => <hr className="my-2 border-line" />,
};

export function Markdown(props: { text: string; className?: string }) {
  return (
    <div className={props.className ?? "text-sm leading-relaxed [overflow-wrap:anywhere]"}>
      <ReactMarkdown remarkPlugins={[remarkGfm]} skipHtml urlTransform={defaultUrlTransform} components={components}>
        {props.text}
      </ReactMarkdown>
    </div>
  );
}
