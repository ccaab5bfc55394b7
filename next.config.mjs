// @ts-check
/** @type {import('next').NextConfig} */
const nextConfig = {
  // Native modules stay outside the server bundle and load through Node's own `require`.
  serverExternalPackages: ['better-sqlite3', '@parcel/watcher', 'sodium-native'],
  poweredByHeader: false,
  // `npm run typecheck` (a step of `npm test`) checks the types; the build does not do it again.
  typescript: { ignoreBuildErrors: true },
  reactStrictMode: true,
  async headers() {
    return [
      {
        source: '/:path*',
        headers: [
          { key: 'X-Content-Type-Options', value: 'nosniff' },
          { key: 'Referrer-Policy', value: 'no-referrer' },
          { key: 'X-Frame-Options', value: 'DENY' },
          { key: 'Cross-Origin-Opener-Policy', value: 'same-origin' },
        ],
      },
    ];
  },
};

export default nextConfig;
