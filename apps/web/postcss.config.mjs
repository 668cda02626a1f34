// Tailwind CSS 4 runs as a PostCSS plugin under Next (Turbopack reads this file).
export default { plugins: { "@tailwindcss/postcss": {} } };
