import { defineConfig } from 'tsup';
import { packageBuildConfig } from '../../tsup.config.base';

export default defineConfig(packageBuildConfig());
