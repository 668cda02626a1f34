// No "use client" here: the layout (a server component) inlines this string into <head>.
export const THEME_STORAGE_KEY = "maity-theme";

/**
 * Runs inline in <head> before the first paint: sets data-theme on <html> from the stored choice
 * or the system's, so a dark-mode reader never sees a white flash. Kept tiny and dependency-free.
 */
export const themeScript = `(function(){try{var c=localStorage.getItem("${THEME_STORAGE_KEY}");var d=c==="dark"||((c!=="light")&&matchMedia("(prefers-color-scheme: dark)").matches);var e=document.documentElement;e.dataset.theme=d?"dark":"light";e.style.colorScheme=d?"dark":"light"}catch(_){}})()`;
