// Word pools for the generated people: names, titles and mail domains.

// Word pools. Names mix many cultures; a few carry diacritics so slug/email derivation is exercised.
export const FIRST_NAMES = [
  'Aisha', 'Mateo', 'Yuki', 'Olusegun', 'Priya', 'Liam', 'Mei', 'Kwame', 'Sofia', 'Arjun', 'Fatima', 'Lars',
  'Chloé', 'Tariq', 'Ingrid', 'Hiroshi', 'Amara', 'Diego', 'Nadia', 'Jonas', 'Leila', 'Kofi', 'Elena', 'Rahul',
  'Zanele', 'Tomás', 'Hana', 'Emeka', 'Anya', 'Marco', 'Siddharth', 'Camila', 'Jae-won', 'Astrid', 'Mohammed',
  'Valentina', 'Ravi', 'Ngozi', 'Pedro', 'Sakura', 'Omar', 'Freya', 'Thabo', 'Lucía', 'Dmitri', 'Ayesha', 'Kai',
  'Isabela', 'Wei', 'Noa', 'Farhan', 'Maren', 'Adebayo', 'Gabriel', 'Linh', 'Sven', 'Zeynep', 'Rohan', 'Malia',
  'Joaquín', 'Esra', 'Minh', 'Björn', 'Ama', 'Carlos', 'Shreya', 'Alejandro', 'Yara', 'Tevita', 'Nkechi',
  'Sebastián', 'Aleksandra', 'Hamza', 'Eun-ji', 'Rafael', 'Kalani', 'Ines', 'Bongani',
];

export const LAST_NAMES = [
  'Okafor', 'García', 'Tanaka', 'Nguyen', 'Patel', 'Müller', 'Chen', 'Mensah', 'Rossi', 'Kowalski', 'Haddad',
  'Andersson', 'Dubois', 'Khan', 'Nakamura', 'Adeyemi', 'Fernández', 'Ivanova', 'Park', 'Silva', 'Schmidt',
  'Mbeki', 'Yılmaz', 'Sharma', 'Kim', 'Hernández', 'Novak', 'Osei', 'Larsen', 'Wang', 'Rahman', 'Costa', 'Sato',
  'Abdullah', 'Jensen', 'Moreau', 'Gupta', 'Li', 'Ramírez', 'Petrov', 'Eze', 'Lindqvist', 'Suzuki', 'Bianchi',
  'Tran', 'Dlamini', 'Hoffmann', 'Reyes', 'Iyer', 'Cohen', 'Kaur', 'Alvarez', 'Zhang', 'Nielsen', 'Mwangi',
  'Öztürk', 'Fujita', 'Castillo', 'Banerjee', 'Kealoha', 'Horvath', 'Santos', 'Wiśniewski', 'Achebe', 'Lopes',
  "O'Brien", 'Van der Berg', 'Moana', 'Bakr', 'Ferreira', 'Choi', 'Murphy', 'Aziz', 'Halvorsen',
];

export const ACADEMIC_TITLES = [
  'PhD Candidate', 'Postdoctoral Researcher', 'Research Fellow', 'Assistant Professor',
  'Associate Professor', 'Professor', 'Senior Lecturer', 'Staff Scientist', 'Principal Investigator',
  'Research Scientist', 'Group Leader', 'Visiting Researcher',
];

export const EMAIL_DOMAINS = ['example.org', 'mail.example.org', 'uni.example.org', 'lab.example.org', 'research.example.org'];
