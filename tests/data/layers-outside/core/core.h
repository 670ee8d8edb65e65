int core (void);
