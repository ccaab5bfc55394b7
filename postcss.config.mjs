// Tailwind CSS 4 through its PostCSS plugin; no tailwind.config is needed.
const config = {
  plugins: {
    '@tailwindcss/postcss': {},
  },
};

export default config;
