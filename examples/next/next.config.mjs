/** The workspace packages are compiled from their TypeScript source (no library build needed). */
const nextConfig = {
  transpilePackages: ['@solver-notifications/core', '@solver-notifications/react', 'example-shared'],
  webpack(config) {
    config.resolve.conditionNames = ['@solver-notifications/source', ...(config.resolve.conditionNames ?? ['import', 'module', 'require', 'default'])]
    config.resolve.extensionAlias = { '.js': ['.ts', '.tsx', '.js'] }
    return config
  },
}
export default nextConfig
