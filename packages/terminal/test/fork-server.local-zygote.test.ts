import { describeForkServer } from './fork-server-suite.js';

describeForkServer('local-zygote');
