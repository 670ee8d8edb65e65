int element (void);
