// @ts-check
/** @type {import('next').NextConfig} */
const nextConfig = {
  // Native modules stay outside the server bundle and load through Node's own `require`.
  serverExternalPackages: ['better-sqlite3', '@parcel/watcher'],
  poweredByHeader: false,
  reactStrictMode: true,
};

export default nextConfig;
